import { useSyncExternalStore, type ReactNode } from 'react';
import { createGlobalStyle, ThemeProvider } from 'styled-components';
import { themeFor, type ThemeMode } from './tokens';

/** localStorage key of the chosen theme (spec 1-platform.md §4: `preferredTheme`). */
export const THEME_STORAGE_KEY = 'preferredTheme';

type Listener = () => void;
const listeners = new Set<Listener>();

function systemMode(): ThemeMode {
  try {
    return typeof window !== 'undefined' && window.matchMedia?.('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
  } catch {
    return 'light';
  }
}

function storedMode(): ThemeMode | undefined {
  try {
    const v = window.localStorage.getItem(THEME_STORAGE_KEY);
    return v === 'light' || v === 'dark' ? v : undefined;
  } catch {
    return undefined;
  }
}

let current: ThemeMode | undefined;

/** The theme mode: the stored `preferredTheme`, else the system preference (`prefers-color-scheme`). */
export function getThemeMode(): ThemeMode {
  if (!current) current = storedMode() ?? systemMode();
  return current;
}

/** Sets and remembers the theme mode; every mounted `AtendoThemeProvider` (shell and areas) follows. */
export function setThemeMode(mode: ThemeMode): void {
  current = mode;
  try {
    window.localStorage.setItem(THEME_STORAGE_KEY, mode);
  } catch {
    /* storage unavailable: the choice lasts for this page only */
  }
  if (typeof document !== 'undefined') {
    document.documentElement.dataset.theme = mode;
    document.documentElement.style.colorScheme = mode;
  }
  for (const l of [...listeners]) l();
}

/** Flips light <-> dark. */
export function toggleThemeMode(): void {
  setThemeMode(getThemeMode() === 'dark' ? 'light' : 'dark');
}

function subscribe(l: Listener): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

/** The current theme mode, re-rendering when it changes. */
export function useThemeMode(): ThemeMode {
  return useSyncExternalStore(subscribe, getThemeMode, getThemeMode);
}

/** styled-components ThemeProvider bound to the shared theme mode. Wrap the root of the shell and of each area. */
export function AtendoThemeProvider({ children }: { children: ReactNode }) {
  const mode = useThemeMode();
  return <ThemeProvider theme={themeFor(mode)}>{children}</ThemeProvider>;
}

/** Page-wide base styles (rendered once, by the shell). */
export const GlobalStyle = createGlobalStyle`
  *, *::before, *::after { box-sizing: border-box; }
  html, body, #root { height: 100%; }
  body {
    margin: 0;
    font-family: ${(p) => p.theme.font.family};
    font-size: 14px;
    line-height: 1.45;
    background: ${(p) => p.theme.colors.background};
    color: ${(p) => p.theme.colors.text};
    -webkit-font-smoothing: antialiased;
  }
  a { color: ${(p) => p.theme.colors.primary}; }
  button, input, select, textarea { font: inherit; color: inherit; }
  :focus-visible { outline: 2px solid ${(p) => p.theme.colors.focus}; outline-offset: 2px; }
  .Toastify__toast { font-family: ${(p) => p.theme.font.family}; }
`;
