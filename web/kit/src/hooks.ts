import { useEffect, useState } from 'react';
import { toastError } from '@atendo/web-api';

/** Search debounce of the product's list screens (spec 3-campaigns-and-tools.md: 500 ms). */
export const SEARCH_DEBOUNCE_MS = 500;

/** `value`, updated `ms` after it stops changing. */
export function useDebounced<T>(value: T, ms: number = SEARCH_DEBOUNCE_MS): T {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return debounced;
}

/** Whether a media query matches, re-rendering when it changes (false where matchMedia is missing). */
export function useMediaQuery(query: string): boolean {
  const get = () => (typeof window.matchMedia === 'function' ? window.matchMedia(query).matches : false);
  const [matches, setMatches] = useState(get);
  useEffect(() => {
    if (typeof window.matchMedia !== 'function') return undefined;
    const mql = window.matchMedia(query);
    const on = () => setMatches(mql.matches);
    on();
    mql.addEventListener?.('change', on);
    return () => mql.removeEventListener?.('change', on);
  }, [query]);
  return matches;
}

/** Shows the shell's error toast (`toastError`) once for each new error of a query (spec 1-platform.md §8). */
export function useErrorToast(error: unknown): void {
  useEffect(() => {
    if (error) toastError(error);
  }, [error]);
}
