import { useMemo, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import styled from 'styled-components';
import { api } from '@atendo/web-api';
import { Button, EmptyState, Loading, Modal } from '@atendo/web-ui';
import { ListFrame, ListHeader, SearchBox, useDebounced, useErrorToast } from '@atendo/web-kit';
import { AgentIcon } from '../../lib/parts';
import { helpVideo } from './video';

/** A help entry as `GET /helps` answers it (plugins/helps). */
export interface Help {
  id: number;
  title: string;
  video: string;
  description: string;
  link: string | null;
  createdAt: string;
  updatedAt: string;
}

export const helpsKey = ['agent', 'helps'] as const;

const Grid = styled.div`
  flex: 1;
  min-height: 0;
  overflow: auto;
  display: grid;
  grid-template-columns: repeat(auto-fill, minmax(260px, 1fr));
  align-content: start;
  gap: ${(p) => p.theme.space(2)};
`;

const Tile = styled.article`
  background: ${(p) => p.theme.colors.surface};
  border: 1px solid ${(p) => p.theme.colors.border};
  border-radius: ${(p) => p.theme.radius.lg};
  box-shadow: ${(p) => p.theme.shadow.sm};
  display: flex;
  flex-direction: column;
  padding: 0;
  overflow: hidden;
  h2 { margin: 0; font-size: ${(p) => p.theme.font.size.md}; }
  p { margin: 0; color: ${(p) => p.theme.colors.textMuted}; font-size: ${(p) => p.theme.font.size.sm}; white-space: pre-wrap; }
  .body { display: flex; flex-direction: column; gap: 6px; padding: ${(p) => p.theme.space(2)}; }
  a { color: ${(p) => p.theme.colors.primary}; font-size: ${(p) => p.theme.font.size.sm}; }
`;

const Thumb = styled.button`
  position: relative;
  display: block;
  width: 100%;
  aspect-ratio: 16 / 9;
  padding: 0;
  border: none;
  background: ${(p) => p.theme.colors.surfaceAlt};
  color: #fff;
  cursor: pointer;
  img { width: 100%; height: 100%; object-fit: cover; display: block; }
  span {
    position: absolute;
    inset: 0;
    display: flex;
    align-items: center;
    justify-content: center;
    background: rgba(0, 0, 0, 0.18);
  }
  &:hover span, &:focus-visible span { background: rgba(0, 0, 0, 0.35); }
`;

const Player = styled.div`
  aspect-ratio: 16 / 9;
  width: 100%;
  background: #000;
  iframe, video { width: 100%; height: 100%; border: 0; display: block; }
`;

/** Whether a help entry matches a (lower-cased) search: title or description. */
export const helpMatches = (h: Help, term: string) => !term || h.title.toLowerCase().includes(term) || (h.description ?? '').toLowerCase().includes(term);

/**
 * The help videos (spec 3-campaigns-and-tools.md §2 "Help videos page"): a grid of cards (thumbnail, title,
 * description) under a title with the count, a search box (title or description, lower-cased, debounced);
 * a card opens a dialog with the video player (Escape closes it). Fed by `GET /helps` (plugins/helps, the
 * same entries for every company, managed by super users).
 */
export function HelpsPage() {
  const { t } = useTranslation('agent');
  const [search, setSearch] = useState('');
  const [playing, setPlaying] = useState<Help | null>(null);
  const term = useDebounced(search.trim().toLowerCase());
  const query = useQuery({ queryKey: helpsKey, queryFn: ({ signal }) => api.get<Help[]>('/helps', { signal }) });
  useErrorToast(query.error);
  const all = query.data ?? [];
  const shown = useMemo(() => all.filter((h) => helpMatches(h, term)), [all, term]);
  const video = playing ? helpVideo(playing.video) : null;

  return (
    <ListFrame data-testid="helps-page">
      <ListHeader title={t('helps.title', { count: all.length })}>
        <SearchBox value={search} onChange={setSearch} label={t('helps.search')} testId="helps-search" />
      </ListHeader>
      {query.isPending ? (
        <Loading label={t('common.loading')} />
      ) : query.isError && !all.length ? (
        <EmptyState icon="warning" text={t('common.loadFailed')} role="alert" data-testid="helps-failed">
          <Button variant="secondary" onClick={() => void query.refetch()}>
            {t('common.retry')}
          </Button>
        </EmptyState>
      ) : shown.length === 0 ? (
        <EmptyState icon="help" text={term ? t('helps.noResults') : t('helps.empty')} data-testid="helps-empty" />
      ) : (
        <Grid data-testid="helps-grid">
          {shown.map((h) => {
            const v = helpVideo(h.video);
            return (
              <Tile key={h.id} data-testid={`help-${h.id}`}>
                {v.kind !== 'none' ? (
                  <Thumb onClick={() => setPlaying(h)} aria-label={t('helps.play', { title: h.title })} data-testid={`help-play-${h.id}`}>
                    {v.kind === 'youtube' ? <img src={v.thumbnail} alt="" loading="lazy" /> : null}
                    <span>
                      <AgentIcon name="play" size={40} />
                    </span>
                  </Thumb>
                ) : null}
                <div className="body">
                  <h2>{h.title}</h2>
                  {h.description ? <p>{h.description}</p> : null}
                  {h.link ? (
                    <a href={h.link} target="_blank" rel="noopener noreferrer">
                      {t('helps.link')}
                    </a>
                  ) : null}
                </div>
              </Tile>
            );
          })}
        </Grid>
      )}
      <Modal open={Boolean(playing)} title={playing?.title ?? ''} onClose={() => setPlaying(null)} closeLabel={t('common.close')} width={900}>
        {video?.kind === 'youtube' ? (
          <Player>
            <iframe src={video.embed} title={playing?.title} allow="autoplay; encrypted-media; picture-in-picture; fullscreen" allowFullScreen data-testid="help-player" />
          </Player>
        ) : video?.kind === 'file' ? (
          <Player>
            <video src={video.url} controls autoPlay data-testid="help-player" />
          </Player>
        ) : null}
        {playing?.description ? <p>{playing.description}</p> : null}
      </Modal>
    </ListFrame>
  );
}
