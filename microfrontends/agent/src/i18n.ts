import i18next from 'i18next';

/** The i18next namespace of the agent area. */
export const NAMESPACE = 'agent';

/**
 * The agent area's own texts (namespace `agent`), added to the shell's shared i18next instance, in the four
 * interface languages (pt-BR default). Each sub-page brings its texts in its folder (`pages/<page>/i18n.ts`,
 * registered when the page's code loads).
 */
export const resources = {
  'pt-BR': {
    variables: {
      label: 'Variáveis',
      choose: 'Inserir uma variável…',
      names: {
        firstName: 'Primeiro nome',
        name: 'Nome',
        userName: 'Atendente',
        ms: 'Saudação',
        protocol: 'Protocolo',
        date: 'Data',
        hour: 'Hora',
        ticket_id: 'Número do ticket',
        queue: 'Fila',
        connection: 'Conexão',
      },
    },
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
      saved: 'Operação realizada com sucesso!',
      deleteFailed: 'Não foi possível realizar a operação',
      required: 'Obrigatório',
      yes: 'Sim',
      no: 'Não',
    },
  },
  en: {
    variables: {
      label: 'Variables',
      choose: 'Insert a variable…',
      names: {
        firstName: 'First name',
        name: 'Name',
        userName: 'Agent',
        ms: 'Greeting',
        protocol: 'Protocol',
        date: 'Date',
        hour: 'Time',
        ticket_id: 'Ticket number',
        queue: 'Queue',
        connection: 'Connection',
      },
    },
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
      saved: 'Operation completed successfully!',
      deleteFailed: 'The operation could not be completed',
      required: 'Required',
      yes: 'Yes',
      no: 'No',
    },
  },
  es: {
    variables: {
      label: 'Variables',
      choose: 'Insertar una variable…',
      names: {
        firstName: 'Primer nombre',
        name: 'Nombre',
        userName: 'Agente',
        ms: 'Saludo',
        protocol: 'Protocolo',
        date: 'Fecha',
        hour: 'Hora',
        ticket_id: 'Número del ticket',
        queue: 'Cola',
        connection: 'Conexión',
      },
    },
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
      saved: '¡Operación realizada con éxito!',
      deleteFailed: 'No se pudo realizar la operación',
      required: 'Obligatorio',
      yes: 'Sí',
      no: 'No',
    },
  },
  tr: {
    variables: {
      label: 'Değişkenler',
      choose: 'Bir değişken ekle…',
      names: {
        firstName: 'Ad',
        name: 'Ad soyad',
        userName: 'Temsilci',
        ms: 'Selamlama',
        protocol: 'Protokol',
        date: 'Tarih',
        hour: 'Saat',
        ticket_id: 'Talep numarası',
        queue: 'Kuyruk',
        connection: 'Bağlantı',
      },
    },
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
      saved: 'İşlem başarıyla tamamlandı!',
      deleteFailed: 'İşlem gerçekleştirilemedi',
      required: 'Zorunlu',
      yes: 'Evet',
      no: 'Hayır',
    },
  },
} as const;

/** Texts in the four languages, pt-BR first: `{ 'pt-BR': {...}, en, es, tr }`. */
export type Texts = Record<'pt-BR' | 'en' | 'es' | 'tr', Record<string, unknown>>;

/** Adds `texts` to the `agent` namespace of the shared i18next instance (idempotent; merged deeply). */
export function registerTexts(texts: Texts): void {
  for (const [lng, bundle] of Object.entries(texts)) {
    i18next.addResourceBundle(lng, NAMESPACE, bundle, true, false);
  }
}

/** Adds the area's own texts (called at the area's start). */
export function registerTranslations(): void {
  registerTexts(resources as unknown as Texts);
}
