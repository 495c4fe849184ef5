import i18next from 'i18next';

/** The i18next namespace of the admin area. */
export const NAMESPACE = 'admin';

/**
 * The admin area's own texts (namespace `admin`), added to the shell's shared i18next instance, in the four
 * interface languages (pt-BR default). Each sub-page brings its texts in its folder (`pages/<page>/i18n.ts`,
 * registered with `registerTexts` when the page's code loads).
 */
export const resources = {
  'pt-BR': {
    schedules: {
      weekday: 'Dia da semana',
      startA: 'Início (1º turno)',
      endA: 'Fim (1º turno)',
      startB: 'Início (2º turno)',
      endB: 'Fim (2º turno)',
      days: { monday: 'Segunda-feira', tuesday: 'Terça-feira', wednesday: 'Quarta-feira', thursday: 'Quinta-feira', friday: 'Sexta-feira', saturday: 'Sábado', sunday: 'Domingo' },
      errors: { bothTimes: 'Informe o início e o fim do turno.', order: 'O fim deve ser depois do início, e o 2º turno depois do 1º.', needsA: 'O 2º turno precisa do 1º.' },
      saved: 'Horários atualizados com sucesso.',
      invalid: 'Corrija os horários antes de salvar.',
    },
    common: { close: 'Fechar', cancel: 'Cancelar', loading: 'Carregando…', retry: 'Tentar novamente', loadMore: 'Carregar mais', loadFailed: 'Não foi possível carregar a lista de registros', saved: 'Operação realizada com sucesso!', deleteFailed: 'Não foi possível realizar a operação', yes: 'Sim', no: 'Não' },
  },
  en: {
    schedules: {
      weekday: 'Weekday',
      startA: 'Start (1st shift)',
      endA: 'End (1st shift)',
      startB: 'Start (2nd shift)',
      endB: 'End (2nd shift)',
      days: { monday: 'Monday', tuesday: 'Tuesday', wednesday: 'Wednesday', thursday: 'Thursday', friday: 'Friday', saturday: 'Saturday', sunday: 'Sunday' },
      errors: { bothTimes: 'Give both the start and the end of the shift.', order: 'The end must come after the start, and the 2nd shift after the 1st.', needsA: 'The 2nd shift needs the 1st.' },
      saved: 'Hours updated.',
      invalid: 'Fix the hours before saving.',
    },
    common: { close: 'Close', cancel: 'Cancel', loading: 'Loading…', retry: 'Try again', loadMore: 'Load more', loadFailed: 'The list could not be loaded', saved: 'Operation completed successfully!', deleteFailed: 'The operation could not be completed', yes: 'Yes', no: 'No' },
  },
  es: {
    schedules: {
      weekday: 'Día de la semana',
      startA: 'Inicio (1.er turno)',
      endA: 'Fin (1.er turno)',
      startB: 'Inicio (2.º turno)',
      endB: 'Fin (2.º turno)',
      days: { monday: 'Lunes', tuesday: 'Martes', wednesday: 'Miércoles', thursday: 'Jueves', friday: 'Viernes', saturday: 'Sábado', sunday: 'Domingo' },
      errors: { bothTimes: 'Indique el inicio y el fin del turno.', order: 'El fin debe ser posterior al inicio, y el 2.º turno posterior al 1.º.', needsA: 'El 2.º turno necesita el 1.º.' },
      saved: 'Horarios actualizados.',
      invalid: 'Corrija los horarios antes de guardar.',
    },
    common: { close: 'Cerrar', cancel: 'Cancelar', loading: 'Cargando…', retry: 'Reintentar', loadMore: 'Cargar más', loadFailed: 'No se pudo cargar la lista de registros', saved: '¡Operación realizada con éxito!', deleteFailed: 'No se pudo realizar la operación', yes: 'Sí', no: 'No' },
  },
  tr: {
    schedules: {
      weekday: 'Gün',
      startA: 'Başlangıç (1. vardiya)',
      endA: 'Bitiş (1. vardiya)',
      startB: 'Başlangıç (2. vardiya)',
      endB: 'Bitiş (2. vardiya)',
      days: { monday: 'Pazartesi', tuesday: 'Salı', wednesday: 'Çarşamba', thursday: 'Perşembe', friday: 'Cuma', saturday: 'Cumartesi', sunday: 'Pazar' },
      errors: { bothTimes: 'Vardiyanın başlangıç ve bitişini girin.', order: 'Bitiş başlangıçtan sonra, 2. vardiya 1. vardiyadan sonra olmalı.', needsA: '2. vardiya için 1. vardiya gerekir.' },
      saved: 'Saatler güncellendi.',
      invalid: 'Kaydetmeden önce saatleri düzeltin.',
    },
    common: { close: 'Kapat', cancel: 'İptal', loading: 'Yükleniyor…', retry: 'Tekrar dene', loadMore: 'Daha fazla yükle', loadFailed: 'Kayıt listesi yüklenemedi', saved: 'İşlem başarıyla tamamlandı!', deleteFailed: 'İşlem gerçekleştirilemedi', yes: 'Evet', no: 'Hayır' },
  },
} as const;

/** Texts in the four languages, pt-BR first: `{ 'pt-BR': {...}, en, es, tr }`. */
export type Texts = Record<'pt-BR' | 'en' | 'es' | 'tr', Record<string, unknown>>;

/** Adds `texts` to the `admin` namespace of the shared i18next instance (idempotent; merged deeply). */
export function registerTexts(texts: Texts): void {
  for (const [lng, bundle] of Object.entries(texts)) {
    i18next.addResourceBundle(lng, NAMESPACE, bundle, true, false);
  }
}

/** Adds the area's own texts (called at the area's start). */
export function registerTranslations(): void {
  registerTexts(resources);
}
