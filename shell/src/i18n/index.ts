import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import { en } from './locales/en';
import { es } from './locales/es';
import { ptBR } from './locales/pt-BR';
import { tr } from './locales/tr';

/** Interface languages (spec 1-platform.md §9); pt-BR is the default and the fallback. */
export const LANGUAGES = ['pt-BR', 'en', 'es', 'tr'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'pt-BR';
/** localStorage key of the chosen language. */
export const LANGUAGE_STORAGE_KEY = 'language';

export const resources = {
  'pt-BR': { translation: ptBR },
  en: { translation: en },
  es: { translation: es },
  tr: { translation: tr },
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
