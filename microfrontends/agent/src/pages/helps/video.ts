/**
 * Where a help entry's video plays from (plugins/helps: `video` is "a video code, e.g. a YouTube id"). A
 * YouTube id or URL plays in YouTube's privacy-enhanced embed with its thumbnail from i.ytimg.com (both
 * allowed by the web server's Content-Security-Policy, shell/serve.ts); a direct http(s) link to a video
 * file plays in a <video>; anything else has no player (the card offers the entry's link instead).
 */

/** The hosts the help gallery loads from: YouTube's thumbnail CDN and its cookie-less player. */
export const YOUTUBE_THUMB_HOST = 'https://i.ytimg.com';
export const YOUTUBE_EMBED_HOST = 'https://www.youtube-nocookie.com';

export type HelpVideo = { kind: 'youtube'; id: string; thumbnail: string; embed: string } | { kind: 'file'; url: string } | { kind: 'none' };

const YT_ID = /^[A-Za-z0-9_-]{11}$/;

/** The YouTube video id of an id or a youtube.com / youtu.be URL, or undefined. */
export function youtubeId(video: string | null | undefined): string | undefined {
  const v = (video ?? '').trim();
  if (YT_ID.test(v)) return v;
  let url: URL;
  try {
    url = new URL(v);
  } catch {
    return undefined;
  }
  const host = url.hostname.replace(/^www\.|^m\./, '');
  let id: string | null | undefined;
  if (host === 'youtu.be') id = url.pathname.split('/')[1];
  else if (host === 'youtube.com' || host === 'youtube-nocookie.com') {
    id = url.searchParams.get('v') ?? /^\/(?:embed|shorts|live|v)\/([^/?#]+)/.exec(url.pathname)?.[1];
  }
  return id && YT_ID.test(id) ? id : undefined;
}

/** How a help entry's `video` plays. */
export function helpVideo(video: string | null | undefined): HelpVideo {
  const id = youtubeId(video);
  if (id) return { kind: 'youtube', id, thumbnail: `${YOUTUBE_THUMB_HOST}/vi/${id}/hqdefault.jpg`, embed: `${YOUTUBE_EMBED_HOST}/embed/${id}?autoplay=1&rel=0` };
  const v = (video ?? '').trim();
  if (/^https?:\/\/\S+\.(mp4|webm|ogg|ogv|mov)(\?\S*)?$/i.test(v)) return { kind: 'file', url: v };
  return { kind: 'none' };
}
