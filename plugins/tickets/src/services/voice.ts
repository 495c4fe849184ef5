import { spawn } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import { AppError, type StoredFile, type UploadService } from '@atendo/sdk';

/**
 * Voice notes recorded in the browser (Chromium gives `audio/webm;codecs=opus`, Firefox `audio/ogg`, Safari
 * `audio/mp4`) converted on the server to what each channel plays as a voice note, with the ffmpeg that
 * `npm ci` installs: `@ffmpeg-installer/ffmpeg` ships a static build (libopus, AAC) inside its per-platform
 * npm packages, so nothing is installed by hand and nothing is taken from the PATH (`FFMPEG_PATH` overrides it):
 * - WhatsApp (Baileys `whatsapp`, Cloud API `whatsappapi`): OGG/Opus, mono, 48 kHz, as WhatsApp's own
 *   clients send, which iPhones play (Baileys sends it as push-to-talk, the Cloud API as `audio`);
 * - Messenger and Instagram: AAC in an M4A container (their audio attachment: aac/m4a/wav/mp4).
 * Recordings under MIN_VOICE_BYTES are refused (spec 2-tickets.md §4 "Voice recording").
 */

/** Recordings smaller than this are discarded (spec §4, §9: 10,000 bytes). */
export const MIN_VOICE_BYTES = 10_000;
/** Longest a conversion may take. */
export const VOICE_TIMEOUT_MS = 30_000;

/** The voice-note format of a channel. */
export interface VoiceFormat {
  /** File extension of the converted file. */
  ext: 'ogg' | 'm4a';
  /** Media type the upload store is told (it sniffs the bytes anyway). */
  mimeType: string;
  /** ffmpeg output arguments (codec, rate, container). */
  args: string[];
}

const OGG_OPUS: VoiceFormat = { ext: 'ogg', mimeType: 'audio/ogg', args: ['-ac', '1', '-ar', '48000', '-c:a', 'libopus', '-b:a', '32k', '-application', 'voip', '-f', 'ogg'] };
const M4A_AAC: VoiceFormat = { ext: 'm4a', mimeType: 'audio/mp4', args: ['-ac', '1', '-ar', '44100', '-c:a', 'aac', '-b:a', '64k', '-movflags', '+faststart', '-f', 'ipod'] };

/** The voice-note format of `channel` (WhatsApp channels: OGG/Opus; Meta channels: M4A/AAC). */
export function voiceFormatOf(channel: string): VoiceFormat {
  return channel === 'facebook' || channel === 'instagram' ? M4A_AAC : OGG_OPUS;
}

/**
 * The ffmpeg executable: FFMPEG_PATH when set, else the binary of `@ffmpeg-installer/ffmpeg` (a dependency of
 * this plugin; its platform package is in node_modules after `npm ci`). A platform it has no build for
 * throws here, and the recording is then sent as recorded (FfmpegMissing): the PATH is never searched.
 */
export function ffmpegPath(): string {
  if (process.env.FFMPEG_PATH) return process.env.FFMPEG_PATH;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return (require('@ffmpeg-installer/ffmpeg') as { path: string }).path;
  } catch (err) {
    throw new FfmpegMissing(`no ffmpeg build for ${process.platform}-${process.arch} in @ffmpeg-installer/ffmpeg (set FFMPEG_PATH): ${String(err)}`);
  }
}

/** Thrown when there is no ffmpeg to run (the recording is then sent as recorded). */
export class FfmpegMissing extends Error {}

/** Runs ffmpeg with `args`; rejects with its stderr on failure, FfmpegMissing when it is not installed. */
export function runFfmpeg(args: string[], timeoutMs = VOICE_TIMEOUT_MS): Promise<void> {
  return new Promise((done, fail) => {
    let stderr = '';
    let bin: string;
    try {
      bin = ffmpegPath();
    } catch (err) {
      fail(err);
      return;
    }
    const child = spawn(bin, ['-hide_banner', '-loglevel', 'error', '-nostdin', '-y', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stderr.on('data', (d: Buffer) => {
      if (stderr.length < 4000) stderr += d.toString();
    });
    child.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      fail(err.code === 'ENOENT' ? new FfmpegMissing(`ffmpeg not found (${bin})`) : err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) done();
      else fail(new Error(`ffmpeg failed (${signal ?? code}): ${stderr.trim().slice(0, 500)}`));
    });
  });
}

/** The absolute file of a stored upload `path` of `companyId` (inside the company's folder only). */
export function storedFile(uploadsDir: string, companyId: number, path: string): string {
  const base = resolve(uploadsDir, `company${companyId}`);
  const abs = resolve(base, path);
  if (!abs.startsWith(base + sep)) throw new AppError('ERR_VALIDATION', 'invalid upload path');
  return abs;
}

/**
 * Converts the stored recording `input` (an upload of `companyId`) to the voice-note format of `channel`,
 * stores the result in `area` and removes the original; returns the stored voice note. 400 ERR_VALIDATION
 * for a recording under MIN_VOICE_BYTES or that is not audio (nothing kept). When ffmpeg is not installed the
 * recording is kept as recorded (the caller logs it): `converted: false`.
 */
export async function convertVoiceNote(
  o: { uploads: UploadService; uploadsDir: string; companyId: number; area: string; channel: string; input: StoredFile; allow: readonly string[] },
): Promise<{ file: StoredFile; converted: boolean }> {
  const { uploads, companyId, input } = o;
  if (input.size < MIN_VOICE_BYTES) {
    await uploads.remove(companyId, input.path);
    throw new AppError('ERR_VALIDATION', `A voice recording must have at least ${MIN_VOICE_BYTES} bytes`);
  }
  if (!input.mimeType.startsWith('audio/') && !input.mimeType.startsWith('video/webm')) {
    await uploads.remove(companyId, input.path);
    throw new AppError('ERR_VALIDATION', 'A voice recording must be audio');
  }
  const format = voiceFormatOf(o.channel);
  const dir = await mkdtemp(join(tmpdir(), 'atendo-voice-'));
  const out = join(dir, `voice.${format.ext}`);
  try {
    try {
      await runFfmpeg(['-i', storedFile(o.uploadsDir, companyId, input.path), '-vn', '-map_metadata', '-1', ...format.args, out]);
    } catch (err) {
      if (err instanceof FfmpegMissing) return { file: input, converted: false };
      await uploads.remove(companyId, input.path);
      throw new AppError('ERR_VALIDATION', 'The voice recording could not be read', { extra: { detail: String((err as Error).message).slice(0, 200) } });
    }
    const size = (await stat(out)).size;
    if (!size) throw new AppError('ERR_VALIDATION', 'The voice recording is empty');
    const base = input.fileName.replace(/\.[A-Za-z0-9]{1,5}$/, '') || 'voice';
    const stored = await uploads.save(companyId, o.area, { file: createReadStream(out), filename: `${base}.${format.ext}`, mimetype: format.mimeType }, { allow: o.allow });
    await uploads.remove(companyId, input.path);
    return { file: stored, converted: true };
  } finally {
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}
