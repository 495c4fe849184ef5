import { PLAYBACK_RATES } from './format';

/**
 * Preferences of the conversation view remembered in localStorage (spec 2-tickets.md §2: the signature
 * switch, default on; the audio playback rate).
 */
export const SIGNATURE_STORAGE_KEY = 'signOption';
export const PLAYBACK_RATE_STORAGE_KEY = 'audioPlaybackRate';

function read(key: string): string | null {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

function write(key: string, value: string): void {
  try {
    window.localStorage.setItem(key, value);
  } catch {
    /* storage unavailable: the choice lasts for this page only */
  }
}

/** The remembered signature switch (default true). */
export function readSignature(): boolean {
  const v = read(SIGNATURE_STORAGE_KEY);
  return v === null ? true : v !== 'false';
}

export function writeSignature(on: boolean): void {
  write(SIGNATURE_STORAGE_KEY, on ? 'true' : 'false');
}

/** The remembered audio playback rate (default 1; only 0.5, 1, 1.5 or 2). */
export function readPlaybackRate(): number {
  const n = Number(read(PLAYBACK_RATE_STORAGE_KEY));
  return (PLAYBACK_RATES as readonly number[]).includes(n) ? n : 1;
}

export function writePlaybackRate(rate: number): void {
  write(PLAYBACK_RATE_STORAGE_KEY, String(rate));
}
