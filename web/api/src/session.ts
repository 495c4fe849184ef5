import { useSyncExternalStore } from 'react';
import type { SessionUser } from './types';

export type SessionStatus = 'loading' | 'signedIn' | 'signedOut';

export interface SessionState {
  status: SessionStatus;
  user: SessionUser | null;
}

type Listener = () => void;

/**
 * The signed-in session, shared by the shell and every area (this module is a module-federation
 * singleton, so there is one store per page). The shell writes it (sign-in, restore, sign-out); areas read
 * it with `useSession()`.
 */
export class SessionStore {
  private state: SessionState = { status: 'loading', user: null };
  private readonly listeners = new Set<Listener>();
  private readonly signOutListeners = new Set<() => void>();

  get = (): SessionState => this.state;

  subscribe = (l: Listener): (() => void) => {
    this.listeners.add(l);
    return () => {
      this.listeners.delete(l);
    };
  };

  /** Called after every sign-out (clear caches, close the socket). */
  onSignOut(l: () => void): () => void {
    this.signOutListeners.add(l);
    return () => {
      this.signOutListeners.delete(l);
    };
  }

  signIn(user: SessionUser): void {
    this.set({ status: 'signedIn', user });
  }

  /** Merges fields into the signed-in user (e.g. a `company-{id}-user` update of oneself). */
  update(patch: Partial<SessionUser>): void {
    if (!this.state.user) return;
    this.set({ status: this.state.status, user: { ...this.state.user, ...patch } });
  }

  signOut(): void {
    const was = this.state.status;
    this.set({ status: 'signedOut', user: null });
    if (was !== 'signedOut') for (const l of [...this.signOutListeners]) l();
  }

  private set(next: SessionState): void {
    this.state = next;
    for (const l of [...this.listeners]) l();
  }
}

export const session = new SessionStore();

/** The session, re-rendering on change. */
export function useSession(): SessionState {
  return useSyncExternalStore(session.subscribe, session.get, session.get);
}

/** The signed-in user, or null. */
export function useSessionUser(): SessionUser | null {
  return useSession().user;
}
