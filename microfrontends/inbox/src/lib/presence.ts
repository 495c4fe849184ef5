import { useSyncExternalStore } from 'react';
import type { Presence } from '../types';

/**
 * Typing and recording indicators of the ticket rows, fed by `company-{cid}-presence` events
 * ({action:'update-presence', ticketId, presence}). 'composing' and 'recording' show until another
 * presence arrives for the ticket or PRESENCE_TTL_MS passes (a lost 'paused' must not leave a row
 * "typing" forever).
 */
export const PRESENCE_TTL_MS = 15_000;

type ActivePresence = 'composing' | 'recording';
const state = new Map<number, { presence: ActivePresence; timer: ReturnType<typeof setTimeout> }>();
const listeners = new Set<() => void>();
let version = 0;

function notify(): void {
  version++;
  for (const l of [...listeners]) l();
}

/** Records a presence of a ticket's contact. */
export function setPresence(ticketId: number, presence: Presence | string): void {
  const current = state.get(ticketId);
  if (current) clearTimeout(current.timer);
  if (presence === 'composing' || presence === 'recording') {
    const timer = setTimeout(() => {
      if (state.get(ticketId)?.timer === timer) {
        state.delete(ticketId);
        notify();
      }
    }, PRESENCE_TTL_MS);
    state.set(ticketId, { presence, timer });
    notify();
  } else if (current) {
    state.delete(ticketId);
    notify();
  }
}

/** The active presence of a ticket ('composing' | 'recording'), if any. */
export function getPresence(ticketId: number): ActivePresence | undefined {
  return state.get(ticketId)?.presence;
}

/** Forgets every presence (area unmount, tests). */
export function clearPresence(): void {
  for (const v of state.values()) clearTimeout(v.timer);
  state.clear();
  notify();
}

const subscribe = (l: () => void) => {
  listeners.add(l);
  return () => {
    listeners.delete(l);
  };
};

/** The active presence of a ticket, re-rendering when it changes. */
export function usePresence(ticketId: number): ActivePresence | undefined {
  useSyncExternalStore(subscribe, () => version, () => version);
  return getPresence(ticketId);
}
