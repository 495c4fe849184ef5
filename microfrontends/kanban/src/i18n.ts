import i18next from 'i18next';

/** The i18next namespace of the kanban area. */
export const NAMESPACE = 'kanban';

/**
 * The kanban area's own texts (namespace `kanban`), added to the shell's shared i18next instance, in the four
 * interface languages (pt-BR default). Each sub-page brings its texts in its folder (`pages/<page>/i18n.ts`,
 * registered when the page's code loads).
 */
export const resources = {
  'pt-BR': {
    common: {
      loading: 'Carregando…',
      retry: 'Tentar novamente',
      loadMore: 'Carregar mais',
      search: 'Pesquisar',
      allQueues: 'Todas as filas',
      allUsers: 'Todos os usuários',
      noQueue: 'Sem fila',
    },
  },
  en: {
    common: {
      loading: 'Loading…',
      retry: 'Try again',
      loadMore: 'Load more',
      search: 'Search',
      allQueues: 'All queues',
      allUsers: 'All users',
      noQueue: 'No queue',
    },
  },
  es: {
    common: {
      loading: 'Cargando…',
      retry: 'Reintentar',
      loadMore: 'Cargar más',
      search: 'Buscar',
      allQueues: 'Todas las colas',
      allUsers: 'Todos los usuarios',
      noQueue: 'Sin cola',
    },
  },
  tr: {
    common: {
      loading: 'Yükleniyor…',
      retry: 'Tekrar dene',
      loadMore: 'Daha fazla yükle',
      search: 'Ara',
      allQueues: 'Tüm kuyruklar',
      allUsers: 'Tüm kullanıcılar',
      noQueue: 'Kuyruk yok',
    },
  },
} as const;

/** Texts in the four languages, pt-BR first: `{ 'pt-BR': {...}, en, es, tr }`. */
export type Texts = Record<'pt-BR' | 'en' | 'es' | 'tr', Record<string, unknown>>;

/** Adds `texts` to the `kanban` namespace of the shared i18next instance (idempotent; merged deeply). */
export function registerTexts(texts: Texts): void {
  for (const [lng, bundle] of Object.entries(texts)) {
    i18next.addResourceBundle(lng, NAMESPACE, bundle, true, false);
  }
}

/** Adds the area's own texts (called at the area's start). */
export function registerTranslations(): void {
  registerTexts(resources as unknown as Texts);
}
