/** The audit log page's texts (namespace `admin`, key `auditLogs`), registered when the page loads. */
export const texts = {
  'pt-BR': {
    auditLogs: {
      title: 'Registro de auditoria',
      count: '{{count}} registro(s)',
      empty: 'Nenhum registro para estes filtros.',
      loadMore: 'Carregar mais',
      filters: { entity: 'Entidade', entityId: 'ID da entidade', user: 'Usuário', from: 'De', to: 'Até', all: 'Todos', apply: 'Filtrar', clear: 'Limpar' },
      cols: { when: 'Quando', who: 'Quem', what: 'O quê', before: 'Antes', after: 'Depois', ip: 'Endereço' },
      actors: { system: 'Sistema', bot: 'Robô', api: 'API' },
      entities: { ticket: 'Atendimento', message: 'Mensagem', contact: 'Contato', user: 'Usuário', queue: 'Fila', connection: 'Conexão', setting: 'Configuração', plan: 'Plano', company: 'Empresa', campaign: 'Campanha', chatbot: 'Opção de menu da fila', 'api-token': 'Token da API' },
      actions: { create: 'criação', update: 'alteração', delete: 'exclusão', accept: 'aceite', transfer: 'transferência', close: 'encerramento', reopen: 'reabertura', edit: 'edição', block: 'bloqueio', unblock: 'desbloqueio', export: 'exportação', anonymize: 'anonimização', cancel: 'cancelamento', restart: 'reinício', 'opt-out': 'descadastro', 'opt-in': 'recadastro', revoke: 'revogação', send: 'envio', renew: 'renovação' },
    },
  },
  en: {
    auditLogs: {
      title: 'Audit log',
      count: '{{count}} entry(ies)',
      empty: 'No entries for these filters.',
      loadMore: 'Load more',
      filters: { entity: 'Entity', entityId: 'Entity ID', user: 'User', from: 'From', to: 'To', all: 'All', apply: 'Filter', clear: 'Clear' },
      cols: { when: 'When', who: 'Who', what: 'What', before: 'Before', after: 'After', ip: 'Address' },
      actors: { system: 'System', bot: 'Bot', api: 'API' },
      entities: { ticket: 'Ticket', message: 'Message', contact: 'Contact', user: 'User', queue: 'Queue', connection: 'Connection', setting: 'Setting', plan: 'Plan', company: 'Company', campaign: 'Campaign', chatbot: 'Queue menu option', 'api-token': 'API token' },
      actions: { create: 'create', update: 'update', delete: 'delete', accept: 'accept', transfer: 'transfer', close: 'close', reopen: 'reopen', edit: 'edit', block: 'block', unblock: 'unblock', export: 'export', anonymize: 'anonymize', cancel: 'cancel', restart: 'restart', 'opt-out': 'opt-out', 'opt-in': 'opt-in', revoke: 'revocation', send: 'send', renew: 'renewal' },
    },
  },
  es: {
    auditLogs: {
      title: 'Registro de auditoría',
      count: '{{count}} registro(s)',
      empty: 'No hay registros para estos filtros.',
      loadMore: 'Cargar más',
      filters: { entity: 'Entidad', entityId: 'ID de la entidad', user: 'Usuario', from: 'Desde', to: 'Hasta', all: 'Todos', apply: 'Filtrar', clear: 'Limpiar' },
      cols: { when: 'Cuándo', who: 'Quién', what: 'Qué', before: 'Antes', after: 'Después', ip: 'Dirección' },
      actors: { system: 'Sistema', bot: 'Bot', api: 'API' },
      entities: { ticket: 'Atención', message: 'Mensaje', contact: 'Contacto', user: 'Usuario', queue: 'Cola', connection: 'Conexión', setting: 'Configuración', plan: 'Plan', company: 'Empresa', campaign: 'Campaña', chatbot: 'Opción de menú de la cola', 'api-token': 'Token de la API' },
      actions: { create: 'creación', update: 'cambio', delete: 'eliminación', accept: 'aceptación', transfer: 'transferencia', close: 'cierre', reopen: 'reapertura', edit: 'edición', block: 'bloqueo', unblock: 'desbloqueo', export: 'exportación', anonymize: 'anonimización', cancel: 'cancelación', restart: 'reinicio', 'opt-out': 'baja', 'opt-in': 'alta', revoke: 'revocación', send: 'envío', renew: 'renovación' },
    },
  },
  tr: {
    auditLogs: {
      title: 'Denetim kaydı',
      count: '{{count}} kayıt',
      empty: 'Bu filtrelerle kayıt yok.',
      loadMore: 'Daha fazla yükle',
      filters: { entity: 'Varlık', entityId: 'Varlık kimliği', user: 'Kullanıcı', from: 'Başlangıç', to: 'Bitiş', all: 'Tümü', apply: 'Filtrele', clear: 'Temizle' },
      cols: { when: 'Ne zaman', who: 'Kim', what: 'Ne', before: 'Önce', after: 'Sonra', ip: 'Adres' },
      actors: { system: 'Sistem', bot: 'Bot', api: 'API' },
      entities: { ticket: 'Talep', message: 'Mesaj', contact: 'Kişi', user: 'Kullanıcı', queue: 'Kuyruk', connection: 'Bağlantı', setting: 'Ayar', plan: 'Plan', company: 'Şirket', campaign: 'Kampanya', chatbot: 'Kuyruk menü seçeneği', 'api-token': 'API belirteci' },
      actions: { create: 'oluşturma', update: 'güncelleme', delete: 'silme', accept: 'kabul', transfer: 'aktarma', close: 'kapatma', reopen: 'yeniden açma', edit: 'düzenleme', block: 'engelleme', unblock: 'engel kaldırma', export: 'dışa aktarma', anonymize: 'anonimleştirme', cancel: 'iptal', restart: 'yeniden başlatma', 'opt-out': 'abonelikten çıkma', 'opt-in': 'yeniden abone olma', revoke: 'iptal', send: 'gönderim', renew: 'yenileme' },
    },
  },
};
