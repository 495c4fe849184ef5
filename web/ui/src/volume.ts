import { useSyncExternalStore } from 'react';

/** localStorage key of the notification volume (0..1, step 0.1; spec 1-platform.md §2 "Top bar"). */
export const VOLUME_STORAGE_KEY = 'volume';
const listeners = new Set<() => void>();
let current: number | undefined;

/** Clamps to 0..1 and rounds to one decimal. */
export function normaliseVolume(v: unknown): number {
  const n = typeof v === 'number' ? v : Number(v);
  if (!Number.isFinite(n)) return 1;
  return Math.round(Math.min(1, Math.max(0, n)) * 10) / 10;
}

/** The remembered notification volume (default 1). */
export function getVolume(): number {
  if (current === undefined) {
    let stored: string | null = null;
    try {
      stored = window.localStorage.getItem(VOLUME_STORAGE_KEY);
    } catch {
      stored = null;
    }
    current = stored === null ? 1 : normaliseVolume(stored);
  }
  return current;
}

/** Sets and remembers the notification volume. */
export function setVolume(v: number): void {
  current = normaliseVolume(v);
  try {
    window.localStorage.setItem(VOLUME_STORAGE_KEY, String(current));
  } catch {
    /* storage unavailable */
  }
  for (const l of [...listeners]) l();
}

const subscribe = (l: () => void) => {
  listeners.add(l);
  return () => {
    listeners.delete(l);
  };
};

/** The notification volume, re-rendering on change (areas play sounds at this volume). */
export function useVolume(): number {
  return useSyncExternalStore(subscribe, getVolume, getVolume);
}
