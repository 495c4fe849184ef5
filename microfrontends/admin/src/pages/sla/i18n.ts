/** The SLA page's texts (namespace `admin`, key `sla`), registered when the page loads. */
export const texts = {
  'pt-BR': {
    sla: {
      title: 'SLA por fila',
      help: 'Prazos de primeira resposta e de resolução, contados só no horário de atendimento da fila (aba Horários da fila) e no fuso da empresa. Em branco: sem prazo. Minutos ou h:mm (1:30 = 90 minutos). Os prazos valem para os atendimentos iniciados depois de salvos; supervisores da fila são avisados quando um prazo estoura.',
      cols: { queue: 'Fila', firstResponse: 'Primeira resposta', resolution: 'Resolução', warn: 'Alerta (%)', actions: 'Ações' },
      none: 'Sem prazo',
      invalidMinutes: 'Minutos (1 a 525600) ou h:mm.',
      invalidPercent: 'De 1 a 99.',
      save: 'Salvar',
      clear: 'Remover prazos',
      saved: 'SLA da fila {{queue}} salvo.',
      empty: 'Nenhuma fila cadastrada.',
    },
  },
  en: {
    sla: {
      title: 'SLA per queue',
      help: "First-response and resolution targets, counted only in the queue's service hours (the queue's Schedules tab) and the company's time zone. Blank: no target. Minutes or h:mm (1:30 = 90 minutes). Targets apply to tickets started after they are saved; the queue's supervisors are notified when a target is breached.",
      cols: { queue: 'Queue', firstResponse: 'First response', resolution: 'Resolution', warn: 'Warning (%)', actions: 'Actions' },
      none: 'No target',
      invalidMinutes: 'Minutes (1 to 525600) or h:mm.',
      invalidPercent: '1 to 99.',
      save: 'Save',
      clear: 'Remove targets',
      saved: 'SLA of queue {{queue}} saved.',
      empty: 'No queues yet.',
    },
  },
  es: {
    sla: {
      title: 'SLA por cola',
      help: 'Plazos de primera respuesta y de resolución, contados solo en el horario de atención de la cola (pestaña Horarios de la cola) y en la zona horaria de la empresa. En blanco: sin plazo. Minutos o h:mm (1:30 = 90 minutos). Los plazos valen para las atenciones iniciadas después de guardarlos; los supervisores de la cola reciben un aviso cuando un plazo vence.',
      cols: { queue: 'Cola', firstResponse: 'Primera respuesta', resolution: 'Resolución', warn: 'Alerta (%)', actions: 'Acciones' },
      none: 'Sin plazo',
      invalidMinutes: 'Minutos (1 a 525600) o h:mm.',
      invalidPercent: 'De 1 a 99.',
      save: 'Guardar',
      clear: 'Quitar plazos',
      saved: 'SLA de la cola {{queue}} guardado.',
      empty: 'No hay colas.',
    },
  },
  tr: {
    sla: {
      title: 'Kuyruk SLA’ları',
      help: 'İlk yanıt ve çözüm hedefleri yalnızca kuyruğun çalışma saatlerinde (kuyruğun Saatler sekmesi) ve şirketin saat diliminde sayılır. Boş: hedef yok. Dakika veya s:dd (1:30 = 90 dakika). Hedefler kaydedildikten sonra başlayan taleplere uygulanır; bir hedef aşıldığında kuyruğun süpervizörleri bilgilendirilir.',
      cols: { queue: 'Kuyruk', firstResponse: 'İlk yanıt', resolution: 'Çözüm', warn: 'Uyarı (%)', actions: 'İşlemler' },
      none: 'Hedef yok',
      invalidMinutes: 'Dakika (1-525600) veya s:dd.',
      invalidPercent: '1 ile 99 arası.',
      save: 'Kaydet',
      clear: 'Hedefleri kaldır',
      saved: '{{queue}} kuyruğunun SLA’sı kaydedildi.',
      empty: 'Henüz kuyruk yok.',
    },
  },
};
