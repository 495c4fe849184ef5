import { lazy, Suspense, useCallback, useEffect, useMemo, useState } from 'react';
import { useNavigate, useTicketId } from './lib/router';
import styled from 'styled-components';
import { useTranslation } from 'react-i18next';
import { useSessionUser } from '@atendo/web-api';
import { EmptyState, Loading } from '@atendo/web-ui';
import { useMediaQuery } from './lib/hooks';
import { clearPresence } from './lib/presence';
import { viewerOf } from './lib/viewer';
import { TicketsManager } from './manager/TicketsManager';
import { useLiveTickets } from './manager/useLiveTickets';
import { SplitDetail as Right, SplitPrompt as Prompt, SplitTab as NarrowTab, SplitTabs as NarrowTabs } from '@atendo/web-kit';

/**
 * The conversation view (with its texts, media and input) loads when a ticket is first opened: /tickets
 * itself shows only the manager.
 */
const Conversation = lazy(() => import('./conversation').then((m) => ({ default: m.Conversation })));

/** Below this width the page shows two tabs (Ticket, Atendimentos) instead of two panes (spec §2). */
export const NARROW_MAX_PX = 899;

const Page = styled.div<{ $narrow: boolean }>`
  display: flex;
  flex-direction: ${(p) => (p.$narrow ? 'column' : 'row')};
  height: calc(100vh - ${(p) => p.theme.layout.topBarHeight}px);
  min-height: 360px;
  background: ${(p) => p.theme.colors.background};
`;

const Left = styled.div<{ $narrow: boolean; $hidden: boolean }>`
  display: ${(p) => (p.$hidden ? 'none' : 'flex')};
  flex-direction: column;
  min-height: 0;
  ${(p) => (p.$narrow ? 'flex: 1; width: 100%;' : 'width: 38%; min-width: 340px; max-width: 520px;')}
  border-right: ${(p) => (p.$narrow ? 'none' : `1px solid ${p.theme.colors.border}`)};
`;

/**
 * /tickets and /tickets/:ticketId (spec 2-tickets.md §2): the ticket manager on the left and the
 * conversation of `:ticketId` (a ticket uuid) on the right, or a prompt to pick a ticket; below 900 px two
 * tabs, "Ticket" (the conversation) and "Atendimentos" (the manager). Keeps the lists live while mounted.
 */
export function TicketsPage() {
  const { t } = useTranslation('inbox');
  const ticketId = useTicketId();
  const navigate = useNavigate();
  const user = useSessionUser();
  const viewer = useMemo(() => viewerOf(user), [user]);
  const openUuid = ticketId ?? null;
  const narrow = useMediaQuery(`(max-width: ${NARROW_MAX_PX}px)`);
  const [narrowTab, setNarrowTab] = useState<'ticket' | 'list'>(openUuid ? 'ticket' : 'list');

  const closeConversation = useCallback(() => navigate('/tickets'), [navigate]);

  useLiveTickets(user?.companyId, viewer, openUuid);
  useEffect(() => () => clearPresence(), []);
  // Picking a ticket on a narrow screen shows it.
  useEffect(() => {
    setNarrowTab(openUuid ? 'ticket' : 'list');
  }, [openUuid]);

  if (!viewer) return null;

  // One tree for both layouts (the manager keeps its tabs and lists when the window crosses 900 px).
  return (
    <Page $narrow={narrow} data-testid="inbox-page" data-layout={narrow ? 'narrow' : 'wide'}>
      {narrow ? (
        <NarrowTabs role="tablist">
          <NarrowTab type="button" role="tab" aria-selected={narrowTab === 'ticket'} $active={narrowTab === 'ticket'} onClick={() => setNarrowTab('ticket')} data-testid="narrow-tab-ticket">
            {t('narrow.ticket')}
          </NarrowTab>
          <NarrowTab type="button" role="tab" aria-selected={narrowTab === 'list'} $active={narrowTab === 'list'} onClick={() => setNarrowTab('list')} data-testid="narrow-tab-list">
            {t('narrow.list')}
          </NarrowTab>
        </NarrowTabs>
      ) : null}
      <Left $narrow={narrow} $hidden={narrow && narrowTab !== 'list'}>
        <TicketsManager viewer={viewer} openUuid={openUuid} />
      </Left>
      <Right $hidden={narrow && narrowTab !== 'ticket'}>
        {openUuid ? (
          <Suspense fallback={<Loading label={t('loading')} />}>
            <Conversation key={openUuid} ticketUuid={openUuid} onClose={closeConversation} />
          </Suspense>
        ) : (
          <Prompt>
            <EmptyState icon="chat" text={t('selectTicket')} data-testid="select-ticket" />
          </Prompt>
        )}
      </Right>
    </Page>
  );
}
