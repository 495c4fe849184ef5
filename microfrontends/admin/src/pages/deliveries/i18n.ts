/** The deliveries page's texts (namespace `admin`, key `deliveries`), registered when the page loads. */
export const texts = {
  "pt-BR": {
    "deliveries": {
      "title": "Entregas",
      "tabs": {
        "failed": "Envios com falha",
        "dead": "Eventos não entregues"
      },
      "refresh": "Atualizar",
      "count": "{{count}} registro(s)",
      "empty": {
        "failed": "Nenhum envio com falha.",
        "dead": "Nenhum evento não entregue."
      },
      "cols": {
        "date": "Data",
        "contact": "Contato",
        "channel": "Canal",
        "message": "Mensagem",
        "reason": "Motivo",
        "actions": "Ações",
        "topic": "Evento",
        "queue": "Fila do consumidor",
        "error": "Erro",
        "company": "Empresa",
        "attempt": "Tentativas"
      },
      "noReason": "Sem motivo informado",
      "ticket": "Atendimento #{{id}}",
      "resend": "Reenviar",
      "resendAll": "Reenviar todos",
      "redrive": "Reprocessar",
      "redriveAll": "Reprocessar todos",
      "redriving": "Na fila para reprocessar",
      "confirmResendAll": {
        "title": "Reenviar todos os envios com falha?",
        "message": "Cada mensagem volta a ficar pendente e é enviada de novo."
      },
      "confirmRedriveAll": {
        "title": "Reprocessar todos os eventos?",
        "message": "Os eventos voltam para a fila de onde saíram."
      },
      "resent": "{{count}} mensagem(ns) reenviada(s).",
      "skippedOptedOut": "{{count}} não reenviada(s): o contato pediu para não receber mensagens em massa.",
      "redriven": "{{count}} evento(s) reprocessado(s).",
      "prev": "Anterior",
      "next": "Próxima",
      "page": "Página {{page}}"
    }
  },
  "en": {
    "deliveries": {
      "title": "Deliveries",
      "tabs": {
        "failed": "Failed sends",
        "dead": "Dead letters"
      },
      "refresh": "Refresh",
      "count": "{{count}} record(s)",
      "empty": {
        "failed": "No failed sends.",
        "dead": "No dead letters."
      },
      "cols": {
        "date": "Date",
        "contact": "Contact",
        "channel": "Channel",
        "message": "Message",
        "reason": "Reason",
        "actions": "Actions",
        "topic": "Event",
        "queue": "Consumer queue",
        "error": "Error",
        "company": "Company",
        "attempt": "Attempts"
      },
      "noReason": "No reason given",
      "ticket": "Ticket #{{id}}",
      "resend": "Resend",
      "resendAll": "Resend all",
      "redrive": "Redrive",
      "redriveAll": "Redrive all",
      "redriving": "Queued for redrive",
      "confirmResendAll": {
        "title": "Resend every failed send?",
        "message": "Each message becomes pending again and is sent once more."
      },
      "confirmRedriveAll": {
        "title": "Redrive every dead letter?",
        "message": "The events go back to the queue they came from."
      },
      "resent": "{{count}} message(s) resent.",
      "skippedOptedOut": "{{count}} not resent: the contact opted out of bulk messages.",
      "redriven": "{{count}} event(s) redriven.",
      "prev": "Previous",
      "next": "Next",
      "page": "Page {{page}}"
    }
  },
  "es": {
    "deliveries": {
      "title": "Entregas",
      "tabs": {
        "failed": "Envíos fallidos",
        "dead": "Eventos no entregados"
      },
      "refresh": "Actualizar",
      "count": "{{count}} registro(s)",
      "empty": {
        "failed": "Ningún envío fallido.",
        "dead": "Ningún evento no entregado."
      },
      "cols": {
        "date": "Fecha",
        "contact": "Contacto",
        "channel": "Canal",
        "message": "Mensaje",
        "reason": "Motivo",
        "actions": "Acciones",
        "topic": "Evento",
        "queue": "Cola del consumidor",
        "error": "Error",
        "company": "Empresa",
        "attempt": "Intentos"
      },
      "noReason": "Sin motivo informado",
      "ticket": "Atención #{{id}}",
      "resend": "Reenviar",
      "resendAll": "Reenviar todos",
      "redrive": "Reprocesar",
      "redriveAll": "Reprocesar todos",
      "redriving": "En cola para reprocesar",
      "confirmResendAll": {
        "title": "¿Reenviar todos los envíos fallidos?",
        "message": "Cada mensaje vuelve a quedar pendiente y se envía de nuevo."
      },
      "confirmRedriveAll": {
        "title": "¿Reprocesar todos los eventos?",
        "message": "Los eventos vuelven a la cola de donde salieron."
      },
      "resent": "{{count}} mensaje(s) reenviado(s).",
      "skippedOptedOut": "{{count}} no reenviado(s): el contacto pidió no recibir mensajes masivos.",
      "redriven": "{{count}} evento(s) reprocesado(s).",
      "prev": "Anterior",
      "next": "Siguiente",
      "page": "Página {{page}}"
    }
  },
  "tr": {
    "deliveries": {
      "title": "Teslimatlar",
      "tabs": {
        "failed": "Başarısız gönderimler",
        "dead": "Teslim edilemeyen olaylar"
      },
      "refresh": "Yenile",
      "count": "{{count}} kayıt",
      "empty": {
        "failed": "Başarısız gönderim yok.",
        "dead": "Teslim edilemeyen olay yok."
      },
      "cols": {
        "date": "Tarih",
        "contact": "Kişi",
        "channel": "Kanal",
        "message": "Mesaj",
        "reason": "Neden",
        "actions": "İşlemler",
        "topic": "Olay",
        "queue": "Tüketici kuyruğu",
        "error": "Hata",
        "company": "Şirket",
        "attempt": "Deneme"
      },
      "noReason": "Neden bildirilmedi",
      "ticket": "Talep #{{id}}",
      "resend": "Yeniden gönder",
      "resendAll": "Tümünü yeniden gönder",
      "redrive": "Yeniden işle",
      "redriveAll": "Tümünü yeniden işle",
      "redriving": "Yeniden işleme sırasında",
      "confirmResendAll": {
        "title": "Tüm başarısız gönderimler yeniden gönderilsin mi?",
        "message": "Her mesaj yeniden beklemeye alınır ve bir kez daha gönderilir."
      },
      "confirmRedriveAll": {
        "title": "Tüm olaylar yeniden işlensin mi?",
        "message": "Olaylar geldikleri kuyruğa geri döner."
      },
      "resent": "{{count}} mesaj yeniden gönderildi.",
      "skippedOptedOut": "{{count}} yeniden gönderilmedi: kişi toplu mesaj almayı reddetti.",
      "redriven": "{{count}} olay yeniden işlendi.",
      "prev": "Önceki",
      "next": "Sonraki",
      "page": "Sayfa {{page}}"
    }
  }
};
