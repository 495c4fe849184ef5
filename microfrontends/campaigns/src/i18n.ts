import i18next from 'i18next';

/** The i18next namespace of the campaigns area. */
export const NAMESPACE = 'campaigns';

/**
 * The campaigns area's shared texts (namespace `campaigns`): common buttons and states, and the campaign
 * status names (spec 3-campaigns-and-tools.md §4 "Campaign status"), in the four interface languages
 * (pt-BR default). Each sub-page brings its own texts (`pages/<page>/i18n.ts`, registered when the page's
 * code loads).
 */
export const resources = {
  'pt-BR': {
    common: {
      close: 'Fechar',
      cancel: 'Cancelar',
      save: 'Salvar',
      add: 'Adicionar',
      edit: 'Editar',
      delete: 'Excluir',
      loading: 'Carregando…',
      retry: 'Tentar novamente',
      loadMore: 'Carregar mais',
      loadFailed: 'Não foi possível carregar a lista de registros',
      search: 'Pesquisar',
      actions: 'Ações',
      back: 'Voltar',
      yes: 'Sim',
      no: 'Não',
    },
    status: {
      INATIVA: 'Inativa',
      PROGRAMADA: 'Programada',
      EM_ANDAMENTO: 'Em andamento',
      CANCELADA: 'Cancelada',
      FINALIZADA: 'Finalizada',
    },
  },
  en: {
    common: {
      close: 'Close',
      cancel: 'Cancel',
      save: 'Save',
      add: 'Add',
      edit: 'Edit',
      delete: 'Delete',
      loading: 'Loading…',
      retry: 'Try again',
      loadMore: 'Load more',
      loadFailed: 'The list could not be loaded',
      search: 'Search',
      actions: 'Actions',
      back: 'Back',
      yes: 'Yes',
      no: 'No',
    },
    status: {
      INATIVA: 'Inactive',
      PROGRAMADA: 'Scheduled',
      EM_ANDAMENTO: 'In progress',
      CANCELADA: 'Cancelled',
      FINALIZADA: 'Finished',
    },
  },
  es: {
    common: {
      close: 'Cerrar',
      cancel: 'Cancelar',
      save: 'Guardar',
      add: 'Agregar',
      edit: 'Editar',
      delete: 'Eliminar',
      loading: 'Cargando…',
      retry: 'Reintentar',
      loadMore: 'Cargar más',
      loadFailed: 'No se pudo cargar la lista de registros',
      search: 'Buscar',
      actions: 'Acciones',
      back: 'Volver',
      yes: 'Sí',
      no: 'No',
    },
    status: {
      INATIVA: 'Inactiva',
      PROGRAMADA: 'Programada',
      EM_ANDAMENTO: 'En curso',
      CANCELADA: 'Cancelada',
      FINALIZADA: 'Finalizada',
    },
  },
  tr: {
    common: {
      close: 'Kapat',
      cancel: 'İptal',
      save: 'Kaydet',
      add: 'Ekle',
      edit: 'Düzenle',
      delete: 'Sil',
      loading: 'Yükleniyor…',
      retry: 'Tekrar dene',
      loadMore: 'Daha fazla yükle',
      loadFailed: 'Kayıt listesi yüklenemedi',
      search: 'Ara',
      actions: 'İşlemler',
      back: 'Geri',
      yes: 'Evet',
      no: 'Hayır',
    },
    status: {
      INATIVA: 'Pasif',
      PROGRAMADA: 'Zamanlandı',
      EM_ANDAMENTO: 'Devam ediyor',
      CANCELADA: 'İptal edildi',
      FINALIZADA: 'Tamamlandı',
    },
  },
} as const;

/** Texts in the four languages, pt-BR first: `{ 'pt-BR': {...}, en, es, tr }`. */
export type Texts = Record<'pt-BR' | 'en' | 'es' | 'tr', Record<string, unknown>>;

/** Adds `texts` to the `campaigns` namespace of the shared i18next instance (idempotent; merged deeply). */
export function registerTexts(texts: Texts): void {
  for (const [lng, bundle] of Object.entries(texts)) {
    i18next.addResourceBundle(lng, NAMESPACE, bundle, true, false);
  }
}

/** Adds the area's own texts (called at the area's start). */
export function registerTranslations(): void {
  registerTexts(resources as unknown as Texts);
}
