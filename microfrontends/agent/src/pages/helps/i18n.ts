/** Texts of the help videos page (namespace `agent`, key `helps`). */
export const texts = {
  'pt-BR': {
    helps: {
      title_one: 'Ajuda ({{count}})',
      title_many: 'Ajuda ({{count}})',
      title_other: 'Ajuda ({{count}})',
      search: 'Pesquisar vídeos',
      empty: 'Nenhum vídeo de ajuda cadastrado.',
      noResults: 'Nenhum vídeo encontrado.',
      play: 'Assistir {{title}}',
      link: 'Abrir link',
    },
  },
  en: {
    helps: {
      title_one: 'Help ({{count}})',
      title_other: 'Help ({{count}})',
      search: 'Search videos',
      empty: 'No help videos yet.',
      noResults: 'No videos found.',
      play: 'Watch {{title}}',
      link: 'Open link',
    },
  },
  es: {
    helps: {
      title_one: 'Ayuda ({{count}})',
      title_many: 'Ayuda ({{count}})',
      title_other: 'Ayuda ({{count}})',
      search: 'Buscar videos',
      empty: 'No hay videos de ayuda.',
      noResults: 'No se encontraron videos.',
      play: 'Ver {{title}}',
      link: 'Abrir enlace',
    },
  },
  tr: {
    helps: {
      title_one: 'Yardım ({{count}})',
      title_other: 'Yardım ({{count}})',
      search: 'Video ara',
      empty: 'Henüz yardım videosu yok.',
      noResults: 'Video bulunamadı.',
      play: '{{title}} izle',
      link: 'Bağlantıyı aç',
    },
  },
};
