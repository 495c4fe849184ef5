import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import styled from 'styled-components';
import { Button, Modal } from '@atendo/web-ui';
import { mapLink, nextPlaybackRate, type GeoPoint, type VCardContact } from './format';
import { ConvIcon } from './icons';
import { Avatar } from './parts';
import { readPlaybackRate, writePlaybackRate } from './prefs';
import './i18n';

/**
 * Media renderers of a message bubble (spec 2-tickets.md §2): an image that enlarges on click, an audio
 * player whose playback rate cycles 0.5/1/1.5/2 and is remembered, a video, a file download, a location
 * card and a shared-contact card with a Chat button.
 */

const Thumb = styled.button`
  display: block;
  padding: 0;
  border: none;
  background: none;
  cursor: zoom-in;
  img {
    display: block;
    max-width: 280px;
    max-height: 280px;
    width: auto;
    border-radius: ${(p) => p.theme.radius.md};
    object-fit: cover;
  }
`;

const Full = styled.img`
  display: block;
  max-width: 100%;
  max-height: 75vh;
  margin: 0 auto;
`;

/** An image; a click opens it enlarged in a dialog. */
export function ImageMedia({ url, alt }: { url: string; alt: string }) {
  const { t } = useTranslation('inbox');
  const [open, setOpen] = useState(false);
  return (
    <>
      <Thumb type="button" onClick={() => setOpen(true)} aria-label={t('conversation.media.enlarge')} data-testid="image-thumb">
        <img src={url} alt={alt} loading="lazy" />
      </Thumb>
      <Modal open={open} title={t('conversation.media.image')} onClose={() => setOpen(false)} closeLabel={t('conversation.close')}>
        <Full src={url} alt={alt} data-testid="image-full" />
        <div style={{ marginTop: 12, textAlign: 'right' }}>
          <a href={url} target="_blank" rel="noopener noreferrer" download>
            {t('conversation.media.download')}
          </a>
        </div>
      </Modal>
    </>
  );
}

const AudioRow = styled.div`
  display: flex;
  align-items: center;
  gap: 6px;
  audio { height: 36px; max-width: 240px; }
`;

const RateButton = styled.button`
  min-width: 44px;
  height: 26px;
  padding: 0 6px;
  border-radius: ${(p) => p.theme.radius.round};
  border: 1px solid ${(p) => p.theme.colors.border};
  background: ${(p) => p.theme.colors.surface};
  color: ${(p) => p.theme.colors.text};
  font-size: ${(p) => p.theme.font.size.xs};
  font-weight: ${(p) => p.theme.font.weight.bold};
  cursor: pointer;
`;

type RateListener = (rate: number) => void;
const rateListeners = new Set<RateListener>();

/** An audio player with a playback-rate button (0.5x, 1x, 1.5x, 2x), the rate shared and remembered. */
export function AudioMedia({ url }: { url: string }) {
  const { t } = useTranslation('inbox');
  const audio = useRef<HTMLAudioElement>(null);
  const [rate, setRate] = useState(readPlaybackRate);
  useEffect(() => {
    const l: RateListener = (r) => setRate(r);
    rateListeners.add(l);
    return () => {
      rateListeners.delete(l);
    };
  }, []);
  useEffect(() => {
    if (audio.current) audio.current.playbackRate = rate;
  }, [rate]);
  const cycle = () => {
    const next = nextPlaybackRate(rate);
    writePlaybackRate(next);
    for (const l of [...rateListeners]) l(next);
  };
  return (
    <AudioRow>
      <audio
        ref={audio}
        controls
        preload="metadata"
        src={url}
        onLoadedMetadata={(e) => {
          e.currentTarget.playbackRate = rate;
        }}
        onPlay={(e) => {
          e.currentTarget.playbackRate = rate;
        }}
        data-testid="audio"
      />
      <RateButton type="button" onClick={cycle} aria-label={t('conversation.media.playbackRate', { rate })} data-testid="playback-rate">
        {rate}x
      </RateButton>
    </AudioRow>
  );
}

const Video = styled.video`
  display: block;
  max-width: 300px;
  max-height: 300px;
  border-radius: ${(p) => p.theme.radius.md};
`;

export function VideoMedia({ url }: { url: string }) {
  return <Video src={url} controls preload="metadata" data-testid="video" />;
}

const FileBox = styled.a`
  display: flex;
  align-items: center;
  gap: 8px;
  padding: 8px 10px;
  border-radius: ${(p) => p.theme.radius.md};
  background: rgba(127, 127, 127, 0.1);
  color: inherit;
  text-decoration: none;
  max-width: 300px;
  span { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; flex: 1; }
  &:hover { background: rgba(127, 127, 127, 0.18); }
`;

/** A file to download. */
export function FileMedia({ url, name }: { url: string; name: string }) {
  const { t } = useTranslation('inbox');
  return (
    <FileBox href={url} target="_blank" rel="noopener noreferrer" download={name} data-testid="file-download" title={t('conversation.media.download')}>
      <ConvIcon name="file" />
      <span>{name}</span>
      <ConvIcon name="download" size={18} />
    </FileBox>
  );
}

const Card = styled.div`
  display: flex;
  flex-direction: column;
  gap: 6px;
  min-width: 220px;
  max-width: 300px;
  padding: 10px;
  border-radius: ${(p) => p.theme.radius.md};
  background: rgba(127, 127, 127, 0.1);
  .row { display: flex; align-items: center; gap: 10px; }
  .title { font-weight: ${(p) => p.theme.font.weight.medium}; }
  .sub { font-size: ${(p) => p.theme.font.size.xs}; color: ${(p) => p.theme.colors.textMuted}; }
`;

/** A location card with a link to a map. */
export function LocationCard({ point }: { point: GeoPoint }) {
  const { t } = useTranslation('inbox');
  return (
    <Card data-testid="location-card">
      <div className="row">
        <ConvIcon name="pin" size={28} />
        <div>
          <div className="title">{point.name || t('conversation.media.location')}</div>
          <div className="sub">
            {point.latitude.toFixed(6)}, {point.longitude.toFixed(6)}
          </div>
        </div>
      </div>
      <a href={mapLink(point)} target="_blank" rel="noopener noreferrer">
        {t('conversation.media.openMap')}
      </a>
    </Card>
  );
}

/** A shared-contact card (name, number) with a Chat button. */
export function ContactCard({ contact, onChat, busy }: { contact: VCardContact; onChat?: (c: VCardContact) => void; busy?: boolean }) {
  const { t } = useTranslation('inbox');
  return (
    <Card data-testid="contact-card">
      <div className="row">
        <Avatar name={contact.name} size={36} />
        <div>
          <div className="title">{contact.name || t('conversation.media.contact')}</div>
          <div className="sub">{contact.number}</div>
        </div>
      </div>
      {onChat && contact.number ? (
        <Button variant="secondary" onClick={() => onChat(contact)} disabled={busy}>
          {t('conversation.media.chat')}
        </Button>
      ) : null}
    </Card>
  );
}
