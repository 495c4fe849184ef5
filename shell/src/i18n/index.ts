import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import { en } from './locales/en';
import { es } from './locales/es';
import { ptBR } from './locales/pt-BR';
import { tr } from './locales/tr';
import type { ErrorTexts } from '../../plugin-error-texts.cjs';

/** Interface languages (spec 1-platform.md §9); pt-BR is the default and the fallback. */
export const LANGUAGES = ['pt-BR', 'en', 'es', 'tr'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'pt-BR';
/** localStorage key of the chosen language. */
export const LANGUAGE_STORAGE_KEY = 'language';

/** Injected by the shell's build and by jest: the plugins' error-code texts (shell/plugin-error-texts.cjs). */
declare const __ATENDO_PLUGIN_ERROR_TEXTS__: ErrorTexts;

/** The plugins' error-code texts (plugins/<id>/i18n/errors.json), merged per language. */
export const PLUGIN_ERROR_TEXTS: ErrorTexts = typeof __ATENDO_PLUGIN_ERROR_TEXTS__ === 'undefined' ? { 'pt-BR': {}, en: {}, es: {}, tr: {} } : __ATENDO_PLUGIN_ERROR_TEXTS__;

/** A language's texts: the shell's, with the plugins' error-code texts added to `backendErrors` (kernel codes). */
function withPluginErrors<T extends { backendErrors: Record<string, string> }>(table: T, lng: Language): T {
  return { ...table, backendErrors: { ...table.backendErrors, ...PLUGIN_ERROR_TEXTS[lng] } };
}

export const resources = {
  'pt-BR': { translation: withPluginErrors(ptBR, 'pt-BR') },
  en: { translation: withPluginErrors(en, 'en') },
  es: { translation: withPluginErrors(es, 'es') },
  tr: { translation: withPluginErrors(tr, 'tr') },
};

export function isLanguage(v: unknown): v is Language {
  return typeof v === 'string' && (LANGUAGES as readonly string[]).includes(v);
}

/** The stored language, else pt-BR. */
export function storedLanguage(): Language {
  try {
    const v = window.localStorage.getItem(LANGUAGE_STORAGE_KEY);
    return isLanguage(v) ? v : DEFAULT_LANGUAGE;
  } catch {
    return DEFAULT_LANGUAGE;
  }
}

/**
 * Initialises the page's shared i18next instance (the default one, a module-federation singleton, so areas
 * add their namespaces to it) with the shell's texts. Idempotent.
 */
export function initI18n(lng: Language = storedLanguage()) {
  if (!i18next.isInitialized) {
    void i18next.use(initReactI18next).init({
      resources,
      lng,
      fallbackLng: DEFAULT_LANGUAGE,
      supportedLngs: [...LANGUAGES],
      interpolation: { escapeValue: false },
      initAsync: false,
    });
  }
  setDocumentLanguage(i18next.language);
  return i18next;
}

function setDocumentLanguage(lng: string): void {
  if (typeof document !== 'undefined') document.documentElement.lang = lng;
}

/** Switches and remembers the interface language. */
export async function setLanguage(lng: Language): Promise<void> {
  try {
    window.localStorage.setItem(LANGUAGE_STORAGE_KEY, lng);
  } catch {
    /* storage unavailable */
  }
  await i18next.changeLanguage(lng);
  setDocumentLanguage(lng);
}
