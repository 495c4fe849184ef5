/** The connections page's texts (namespace `admin`, key `connections`), registered when the page's code loads (index.ts). */
export const texts = {
  "pt-BR": {
    "connections": {
      "title": "Conexões",
      "count_one": "{{count}} conexão",
      "count_many": "{{count}} conexões",
      "count_other": "{{count}} conexões",
      "countOfLimit_one": "{{count}} de {{limit}} conexões do plano",
      "countOfLimit_many": "{{count}} de {{limit}} conexões do plano",
      "countOfLimit_other": "{{count}} de {{limit}} conexões do plano",
      "restartAll": "Reiniciar conexões",
      "new": "Nova conexão",
      "notInPlan": "O plano da empresa não inclui este canal.",
      "channels": {
        "whatsapp": "WhatsApp (QR code)",
        "whatsappapi": "WhatsApp Cloud API",
        "facebook": "Facebook",
        "instagram": "Instagram"
      },
      "columns": {
        "channel": "Canal",
        "name": "Nome",
        "number": "Número",
        "status": "Status",
        "session": "Sessão",
        "updatedAt": "Última atualização",
        "default": "Padrão",
        "actions": "Ações"
      },
      "status": {
        "CONNECTED": "Conectado",
        "qrcode": "Aguardando QR code",
        "PAIRING": "Pareando",
        "OPENING": "Conectando",
        "TIMEOUT": "Tempo esgotado",
        "DISCONNECTED": "Desconectado",
        "other": "{{status}}"
      },
      "attention": "Esta conexão precisa de atenção",
      "history": "Histórico de {{name}}",
      "historyButton": "Histórico de status de {{name}}",
      "historyEmpty": "Nenhuma mudança de status registrada ainda.",
      "historyColumns": {
        "when": "Quando",
        "change": "Mudança",
        "reason": "Motivo",
        "retries": "Tentativas"
      },
      "reasons": {
        "livenessProbe": "Conectada mas sem resposta (verificação de vida)",
        "connectionLost": "Conexão perdida",
        "connectionClosed": "Conexão fechada",
        "connectionReplaced": "Aberta em outro lugar",
        "loggedOut": "Desconectada no celular (novo QR code)",
        "badSession": "Sessão inválida (novo QR code)",
        "multideviceMismatch": "Dispositivo incompatível (novo QR code)",
        "forbidden": "Recusada pelo WhatsApp",
        "unavailableService": "WhatsApp indisponível",
        "restartRequired": "Reinício pedido pelo WhatsApp",
        "unknown": "Motivo desconhecido"
      },
      "session": {
        "qr": "QR code",
        "retry": "Tentar novamente",
        "newQr": "Novo QR code",
        "disconnect": "Desconectar",
        "connecting": "Conectando…",
        "pairingCode": "Código de pareamento"
      },
      "empty": "Nenhuma conexão cadastrada.",
      "edit": "Editar {{name}}",
      "delete": "Excluir {{name}}",
      "confirm": {
        "delete": {
          "title": "Excluir {{name}}?",
          "message": "A conexão será excluída. Esta ação não pode ser desfeita.",
          "confirm": "Excluir"
        },
        "disconnect": {
          "title": "Desconectar {{name}}?",
          "message": "A sessão será encerrada e será preciso ler um novo QR code.",
          "confirm": "Desconectar"
        }
      },
      "toasts": {
        "saved": "Conexão salva com sucesso.",
        "deleted": "Conexão excluída com sucesso.",
        "restarting": "Reiniciando as conexões…"
      },
      "qr": {
        "title": "QR code de {{name}}",
        "step1": "Abra o WhatsApp no celular.",
        "step2": "Toque em Mais opções ou Configurações e escolha Aparelhos conectados.",
        "step3": "Toque em Conectar um aparelho e aponte a câmera para este código.",
        "image": "QR code da conexão",
        "waiting": "Aguardando o QR code…",
        "phone": "Ou conecte pelo número do WhatsApp (com DDI e DDD)",
        "pairButton": "Gerar código",
        "phoneInvalid": "Informe o número com o código do país e o DDD (10 a 15 dígitos).",
        "pairStep3": "Toque em Conectar um aparelho > Conectar com número de telefone e digite este código.",
        "pairCode": "Código de pareamento"
      },
      "import": {
        "preparing": "Preparando a importação…",
        "progress": "Importadas {{done}} de {{all}} mensagens"
      },
      "tabs": {
        "general": "Geral",
        "integrations": "Integrações",
        "messages": "Mensagens",
        "chatbot": "Chatbot",
        "nps": "Avaliações (NPS)",
        "schedules": "Horários"
      },
      "form": {
        "addTitle": "Nova conexão: {{channel}}",
        "editTitle": "Editar conexão",
        "sections": "Seções da conexão",
        "name": "Nome",
        "isDefault": "Conexão padrão",
        "accountId": {
          "whatsappapi": "ID do número de telefone",
          "facebook": "ID da página",
          "instagram": "ID da conta do Instagram"
        },
        "accessToken": "Token de acesso",
        "accessTokenKept": "Deixe em branco para manter o token salvo.",
        "allowGroup": "Permitir grupos",
        "groupAsTicket": "Grupos como atendimento",
        "enabled": "Habilitado",
        "disabled": "Desabilitado",
        "queues": "Filas",
        "noQueues": "Nenhuma fila cadastrada.",
        "token": "Token da API",
        "tokenHelp": "Usado pela API de mensagens; gere um novo ou copie.",
        "generateToken": "Gerar token",
        "copyToken": "Copiar token",
        "tokenCopied": "Token copiado.",
        "tokenCopyFailed": "Não foi possível copiar o token.",
        "badToken": "De 16 a 100 letras, números, _ ou -",
        "badAccountId": "Somente números",
        "badNumber": "Use um número inteiro",
        "integration": "Integração",
        "prompt": "Prompt",
        "none": "Nenhuma",
        "noIntegrations": "Nenhuma integração cadastrada",
        "noPrompts": "Nenhum prompt cadastrado",
        "minutes_one": "{{count}} minuto",
        "minutes_many": "{{count}} minutos",
        "minutes_other": "{{count}} minutos",
        "greeting": "Mensagem de saudação",
        "greetingHelp": "Obrigatória com mais de uma fila.",
        "greetingRequired": "A mensagem de saudação é obrigatória quando a conexão tem mais de uma fila.",
        "completion": "Mensagem de conclusão",
        "outOfHours": "Mensagem fora do expediente",
        "rating": "Mensagem de avaliação",
        "timeInactive": "Minutos sem resposta até a mensagem de inatividade",
        "inactive": "Mensagem de inatividade",
        "expiresInactive": "Mensagem ao encerrar por inatividade",
        "maxUseBotQueues": "Vezes que o bot repete o menu",
        "timeUseBotQueues": "Intervalo do bot (minutos)",
        "timeSendQueue": "Enviar para a fila após",
        "sendIdQueue": "Fila de destino",
        "expiresTicket": "Encerrar atendimento sem resposta após (minutos)",
        "whenExpiresTicket": "Encerrar quando a última mensagem for",
        "whenExpires": {
          "0": "do cliente ou do atendente",
          "1": "do atendente"
        },
        "timeCreateNewTicket": "Novo atendimento após (minutos)",
        "maxUseBotQueuesNPS": "Vezes que a avaliação é pedida",
        "expiresTicketNPS": "Expirar a avaliação após (minutos)",
        "add": "Adicionar",
        "save": "Salvar",
        "greetingMedia": "Mídia da saudação (imagem, áudio, vídeo ou documento, até 16 MB)",
        "greetingMediaTooBig": "O arquivo passa de 16 MB.",
        "greetingMediaRemove": "Remover a mídia atual ({{name}})"
      }
    }
  },
  "en": {
    "connections": {
      "title": "Connections",
      "count_one": "{{count}} connection",
      "count_other": "{{count}} connections",
      "countOfLimit_one": "{{count}} of {{limit}} connections in the plan",
      "countOfLimit_other": "{{count}} of {{limit}} connections in the plan",
      "restartAll": "Restart connections",
      "new": "New connection",
      "notInPlan": "The company's plan does not include this channel.",
      "channels": {
        "whatsapp": "WhatsApp (QR code)",
        "whatsappapi": "WhatsApp Cloud API",
        "facebook": "Facebook",
        "instagram": "Instagram"
      },
      "columns": {
        "channel": "Channel",
        "name": "Name",
        "number": "Number",
        "status": "Status",
        "session": "Session",
        "updatedAt": "Last update",
        "default": "Default",
        "actions": "Actions"
      },
      "status": {
        "CONNECTED": "Connected",
        "qrcode": "Waiting for QR code",
        "PAIRING": "Pairing",
        "OPENING": "Connecting",
        "TIMEOUT": "Timed out",
        "DISCONNECTED": "Disconnected",
        "other": "{{status}}"
      },
      "attention": "This connection needs attention",
      "history": "History of {{name}}",
      "historyButton": "Status history of {{name}}",
      "historyEmpty": "No status change recorded yet.",
      "historyColumns": {
        "when": "When",
        "change": "Change",
        "reason": "Reason",
        "retries": "Attempts"
      },
      "reasons": {
        "livenessProbe": "Connected but not answering (liveness check)",
        "connectionLost": "Connection lost",
        "connectionClosed": "Connection closed",
        "connectionReplaced": "Opened elsewhere",
        "loggedOut": "Logged out on the phone (new QR code)",
        "badSession": "Invalid session (new QR code)",
        "multideviceMismatch": "Device mismatch (new QR code)",
        "forbidden": "Refused by WhatsApp",
        "unavailableService": "WhatsApp unavailable",
        "restartRequired": "Restart asked by WhatsApp",
        "unknown": "Unknown reason"
      },
      "session": {
        "qr": "QR code",
        "retry": "Try again",
        "newQr": "New QR code",
        "disconnect": "Disconnect",
        "connecting": "Connecting…",
        "pairingCode": "Pairing code"
      },
      "empty": "No connections yet.",
      "edit": "Edit {{name}}",
      "delete": "Delete {{name}}",
      "confirm": {
        "delete": {
          "title": "Delete {{name}}?",
          "message": "The connection will be deleted. This cannot be undone.",
          "confirm": "Delete"
        },
        "disconnect": {
          "title": "Disconnect {{name}}?",
          "message": "The session ends and a new QR code will have to be scanned.",
          "confirm": "Disconnect"
        }
      },
      "toasts": {
        "saved": "Connection saved.",
        "deleted": "Connection deleted.",
        "restarting": "Restarting the connections…"
      },
      "qr": {
        "title": "QR code of {{name}}",
        "step1": "Open WhatsApp on your phone.",
        "step2": "Tap More options or Settings and choose Linked devices.",
        "step3": "Tap Link a device and point the camera at this code.",
        "image": "The connection's QR code",
        "waiting": "Waiting for the QR code…",
        "phone": "Or link with the WhatsApp number (with country and area codes)",
        "pairButton": "Get code",
        "phoneInvalid": "Enter the number with the country and area codes (10 to 15 digits).",
        "pairStep3": "Tap Link a device > Link with phone number instead and type this code.",
        "pairCode": "Pairing code"
      },
      "import": {
        "preparing": "Preparing the import…",
        "progress": "Imported {{done}} of {{all}} messages"
      },
      "tabs": {
        "general": "General",
        "integrations": "Integrations",
        "messages": "Messages",
        "chatbot": "Chatbot",
        "nps": "Ratings (NPS)",
        "schedules": "Hours"
      },
      "form": {
        "addTitle": "New connection: {{channel}}",
        "editTitle": "Edit connection",
        "sections": "Connection sections",
        "name": "Name",
        "isDefault": "Default connection",
        "accountId": {
          "whatsappapi": "Phone number ID",
          "facebook": "Page ID",
          "instagram": "Instagram account ID"
        },
        "accessToken": "Access token",
        "accessTokenKept": "Leave blank to keep the stored token.",
        "allowGroup": "Allow groups",
        "groupAsTicket": "Groups as tickets",
        "enabled": "Enabled",
        "disabled": "Disabled",
        "queues": "Queues",
        "noQueues": "No queues yet.",
        "token": "API token",
        "tokenHelp": "Used by the messages API; generate a new one or copy it.",
        "generateToken": "Generate token",
        "copyToken": "Copy token",
        "tokenCopied": "Token copied.",
        "tokenCopyFailed": "The token could not be copied.",
        "badToken": "16 to 100 letters, digits, _ or -",
        "badAccountId": "Digits only",
        "badNumber": "Use a whole number",
        "integration": "Integration",
        "prompt": "Prompt",
        "none": "None",
        "noIntegrations": "No integrations yet",
        "noPrompts": "No prompts yet",
        "minutes_one": "{{count}} minute",
        "minutes_other": "{{count}} minutes",
        "greeting": "Greeting message",
        "greetingHelp": "Required with more than one queue.",
        "greetingRequired": "A greeting message is required when the connection has more than one queue.",
        "completion": "Completion message",
        "outOfHours": "Out-of-hours message",
        "rating": "Rating message",
        "timeInactive": "Minutes without an answer before the inactivity message",
        "inactive": "Inactivity message",
        "expiresInactive": "Message when closing for inactivity",
        "maxUseBotQueues": "Times the bot repeats the menu",
        "timeUseBotQueues": "Bot interval (minutes)",
        "timeSendQueue": "Send to the queue after",
        "sendIdQueue": "Target queue",
        "expiresTicket": "Close unanswered tickets after (minutes)",
        "whenExpiresTicket": "Close when the last message is",
        "whenExpires": {
          "0": "the customer's or the attendant's",
          "1": "the attendant's"
        },
        "timeCreateNewTicket": "New ticket after (minutes)",
        "maxUseBotQueuesNPS": "Times the rating is asked",
        "expiresTicketNPS": "Rating expires after (minutes)",
        "add": "Add",
        "save": "Save",
        "greetingMedia": "Greeting media (image, audio, video or document, up to 16 MB)",
        "greetingMediaTooBig": "The file is larger than 16 MB.",
        "greetingMediaRemove": "Remove the current media ({{name}})"
      }
    }
  },
  "es": {
    "connections": {
      "title": "Conexiones",
      "count_one": "{{count}} conexión",
      "count_many": "{{count}} conexiones",
      "count_other": "{{count}} conexiones",
      "countOfLimit_one": "{{count}} de {{limit}} conexiones del plan",
      "countOfLimit_many": "{{count}} de {{limit}} conexiones del plan",
      "countOfLimit_other": "{{count}} de {{limit}} conexiones del plan",
      "restartAll": "Reiniciar conexiones",
      "new": "Nueva conexión",
      "notInPlan": "El plan de la empresa no incluye este canal.",
      "channels": {
        "whatsapp": "WhatsApp (código QR)",
        "whatsappapi": "WhatsApp Cloud API",
        "facebook": "Facebook",
        "instagram": "Instagram"
      },
      "columns": {
        "channel": "Canal",
        "name": "Nombre",
        "number": "Número",
        "status": "Estado",
        "session": "Sesión",
        "updatedAt": "Última actualización",
        "default": "Predeterminada",
        "actions": "Acciones"
      },
      "status": {
        "CONNECTED": "Conectada",
        "qrcode": "Esperando el código QR",
        "PAIRING": "Vinculando",
        "OPENING": "Conectando",
        "TIMEOUT": "Tiempo agotado",
        "DISCONNECTED": "Desconectada",
        "other": "{{status}}"
      },
      "attention": "Esta conexión necesita atención",
      "history": "Historial de {{name}}",
      "historyButton": "Historial de estado de {{name}}",
      "historyEmpty": "Todavía no hay cambios de estado registrados.",
      "historyColumns": {
        "when": "Cuándo",
        "change": "Cambio",
        "reason": "Motivo",
        "retries": "Intentos"
      },
      "reasons": {
        "livenessProbe": "Conectada pero sin respuesta (verificación de vida)",
        "connectionLost": "Conexión perdida",
        "connectionClosed": "Conexión cerrada",
        "connectionReplaced": "Abierta en otro lugar",
        "loggedOut": "Desconectada en el teléfono (nuevo código QR)",
        "badSession": "Sesión inválida (nuevo código QR)",
        "multideviceMismatch": "Dispositivo incompatible (nuevo código QR)",
        "forbidden": "Rechazada por WhatsApp",
        "unavailableService": "WhatsApp no disponible",
        "restartRequired": "Reinicio pedido por WhatsApp",
        "unknown": "Motivo desconocido"
      },
      "session": {
        "qr": "Código QR",
        "retry": "Reintentar",
        "newQr": "Nuevo código QR",
        "disconnect": "Desconectar",
        "connecting": "Conectando…",
        "pairingCode": "Código de vinculación"
      },
      "empty": "Aún no hay conexiones.",
      "edit": "Editar {{name}}",
      "delete": "Eliminar {{name}}",
      "confirm": {
        "delete": {
          "title": "¿Eliminar {{name}}?",
          "message": "La conexión se eliminará. Esta acción no se puede deshacer.",
          "confirm": "Eliminar"
        },
        "disconnect": {
          "title": "¿Desconectar {{name}}?",
          "message": "La sesión termina y habrá que escanear un nuevo código QR.",
          "confirm": "Desconectar"
        }
      },
      "toasts": {
        "saved": "Conexión guardada.",
        "deleted": "Conexión eliminada.",
        "restarting": "Reiniciando las conexiones…"
      },
      "qr": {
        "title": "Código QR de {{name}}",
        "step1": "Abra WhatsApp en el teléfono.",
        "step2": "Toque Más opciones o Ajustes y elija Dispositivos vinculados.",
        "step3": "Toque Vincular un dispositivo y apunte la cámara a este código.",
        "image": "Código QR de la conexión",
        "waiting": "Esperando el código QR…",
        "phone": "O vincula con el número de WhatsApp (con código de país y de área)",
        "pairButton": "Generar código",
        "phoneInvalid": "Indica el número con el código de país y de área (10 a 15 dígitos).",
        "pairStep3": "Toca Vincular un dispositivo > Vincular con el número de teléfono y escribe este código.",
        "pairCode": "Código de vinculación"
      },
      "import": {
        "preparing": "Preparando la importación…",
        "progress": "Importados {{done}} de {{all}} mensajes"
      },
      "tabs": {
        "general": "General",
        "integrations": "Integraciones",
        "messages": "Mensajes",
        "chatbot": "Chatbot",
        "nps": "Valoraciones (NPS)",
        "schedules": "Horarios"
      },
      "form": {
        "addTitle": "Nueva conexión: {{channel}}",
        "editTitle": "Editar conexión",
        "sections": "Secciones de la conexión",
        "name": "Nombre",
        "isDefault": "Conexión predeterminada",
        "accountId": {
          "whatsappapi": "ID del número de teléfono",
          "facebook": "ID de la página",
          "instagram": "ID de la cuenta de Instagram"
        },
        "accessToken": "Token de acceso",
        "accessTokenKept": "Déjelo en blanco para mantener el token guardado.",
        "allowGroup": "Permitir grupos",
        "groupAsTicket": "Grupos como atenciones",
        "enabled": "Habilitado",
        "disabled": "Deshabilitado",
        "queues": "Colas",
        "noQueues": "Aún no hay colas.",
        "token": "Token de la API",
        "tokenHelp": "Lo usa la API de mensajes; genere uno nuevo o cópielo.",
        "generateToken": "Generar token",
        "copyToken": "Copiar token",
        "tokenCopied": "Token copiado.",
        "tokenCopyFailed": "No se pudo copiar el token.",
        "badToken": "De 16 a 100 letras, números, _ o -",
        "badAccountId": "Solo números",
        "badNumber": "Use un número entero",
        "integration": "Integración",
        "prompt": "Prompt",
        "none": "Ninguna",
        "noIntegrations": "Aún no hay integraciones",
        "noPrompts": "Aún no hay prompts",
        "minutes_one": "{{count}} minuto",
        "minutes_many": "{{count}} minutos",
        "minutes_other": "{{count}} minutos",
        "greeting": "Mensaje de saludo",
        "greetingHelp": "Obligatorio con más de una cola.",
        "greetingRequired": "El mensaje de saludo es obligatorio cuando la conexión tiene más de una cola.",
        "completion": "Mensaje de cierre",
        "outOfHours": "Mensaje fuera de horario",
        "rating": "Mensaje de valoración",
        "timeInactive": "Minutos sin respuesta antes del mensaje de inactividad",
        "inactive": "Mensaje de inactividad",
        "expiresInactive": "Mensaje al cerrar por inactividad",
        "maxUseBotQueues": "Veces que el bot repite el menú",
        "timeUseBotQueues": "Intervalo del bot (minutos)",
        "timeSendQueue": "Enviar a la cola después de",
        "sendIdQueue": "Cola de destino",
        "expiresTicket": "Cerrar atenciones sin respuesta después de (minutos)",
        "whenExpiresTicket": "Cerrar cuando el último mensaje sea",
        "whenExpires": {
          "0": "del cliente o del agente",
          "1": "del agente"
        },
        "timeCreateNewTicket": "Nueva atención después de (minutos)",
        "maxUseBotQueuesNPS": "Veces que se pide la valoración",
        "expiresTicketNPS": "La valoración expira después de (minutos)",
        "add": "Agregar",
        "save": "Guardar",
        "greetingMedia": "Medio del saludo (imagen, audio, video o documento, hasta 16 MB)",
        "greetingMediaTooBig": "El archivo supera 16 MB.",
        "greetingMediaRemove": "Quitar el medio actual ({{name}})"
      }
    }
  },
  "tr": {
    "connections": {
      "title": "Bağlantılar",
      "count_one": "{{count}} bağlantı",
      "count_other": "{{count}} bağlantı",
      "countOfLimit_one": "Plandaki {{limit}} bağlantıdan {{count}}",
      "countOfLimit_other": "Plandaki {{limit}} bağlantıdan {{count}}",
      "restartAll": "Bağlantıları yeniden başlat",
      "new": "Yeni bağlantı",
      "notInPlan": "Şirketin planı bu kanalı içermiyor.",
      "channels": {
        "whatsapp": "WhatsApp (QR kod)",
        "whatsappapi": "WhatsApp Cloud API",
        "facebook": "Facebook",
        "instagram": "Instagram"
      },
      "columns": {
        "channel": "Kanal",
        "name": "Ad",
        "number": "Numara",
        "status": "Durum",
        "session": "Oturum",
        "updatedAt": "Son güncelleme",
        "default": "Varsayılan",
        "actions": "İşlemler"
      },
      "status": {
        "CONNECTED": "Bağlı",
        "qrcode": "QR kod bekleniyor",
        "PAIRING": "Eşleştiriliyor",
        "OPENING": "Bağlanıyor",
        "TIMEOUT": "Zaman aşımı",
        "DISCONNECTED": "Bağlı değil",
        "other": "{{status}}"
      },
      "attention": "Bu bağlantı ilgi bekliyor",
      "history": "{{name}} geçmişi",
      "historyButton": "{{name}} durum geçmişi",
      "historyEmpty": "Henüz kayıtlı durum değişikliği yok.",
      "historyColumns": {
        "when": "Ne zaman",
        "change": "Değişiklik",
        "reason": "Neden",
        "retries": "Denemeler"
      },
      "reasons": {
        "livenessProbe": "Bağlı ama yanıt vermiyor (canlılık kontrolü)",
        "connectionLost": "Bağlantı kaybedildi",
        "connectionClosed": "Bağlantı kapandı",
        "connectionReplaced": "Başka bir yerde açıldı",
        "loggedOut": "Telefonda çıkış yapıldı (yeni QR kodu)",
        "badSession": "Geçersiz oturum (yeni QR kodu)",
        "multideviceMismatch": "Cihaz uyumsuzluğu (yeni QR kodu)",
        "forbidden": "WhatsApp tarafından reddedildi",
        "unavailableService": "WhatsApp kullanılamıyor",
        "restartRequired": "WhatsApp yeniden başlatma istedi",
        "unknown": "Bilinmeyen neden"
      },
      "session": {
        "qr": "QR kod",
        "retry": "Tekrar dene",
        "newQr": "Yeni QR kod",
        "disconnect": "Bağlantıyı kes",
        "connecting": "Bağlanıyor…",
        "pairingCode": "Eşleştirme kodu"
      },
      "empty": "Henüz bağlantı yok.",
      "edit": "{{name}} düzenle",
      "delete": "{{name}} sil",
      "confirm": {
        "delete": {
          "title": "{{name}} silinsin mi?",
          "message": "Bağlantı silinecek. Bu işlem geri alınamaz.",
          "confirm": "Sil"
        },
        "disconnect": {
          "title": "{{name}} bağlantısı kesilsin mi?",
          "message": "Oturum kapanır; yeni bir QR kodun okutulması gerekir.",
          "confirm": "Bağlantıyı kes"
        }
      },
      "toasts": {
        "saved": "Bağlantı kaydedildi.",
        "deleted": "Bağlantı silindi.",
        "restarting": "Bağlantılar yeniden başlatılıyor…"
      },
      "qr": {
        "title": "{{name}} QR kodu",
        "step1": "Telefonunuzda WhatsApp’ı açın.",
        "step2": "Diğer seçenekler veya Ayarlar’a dokunup Bağlı cihazlar’ı seçin.",
        "step3": "Cihaz bağla’ya dokunun ve kamerayı bu koda tutun.",
        "image": "Bağlantının QR kodu",
        "waiting": "QR kod bekleniyor…",
        "phone": "Veya WhatsApp numarasıyla bağlayın (ülke ve alan koduyla)",
        "pairButton": "Kod al",
        "phoneInvalid": "Numarayı ülke ve alan koduyla girin (10 ile 15 hane).",
        "pairStep3": "Cihaz bağla > Bunun yerine telefon numarasıyla bağla'ya dokunun ve bu kodu yazın.",
        "pairCode": "Eşleştirme kodu"
      },
      "import": {
        "preparing": "İçe aktarma hazırlanıyor…",
        "progress": "{{all}} mesajdan {{done}} içe aktarıldı"
      },
      "tabs": {
        "general": "Genel",
        "integrations": "Entegrasyonlar",
        "messages": "Mesajlar",
        "chatbot": "Sohbet botu",
        "nps": "Değerlendirmeler (NPS)",
        "schedules": "Saatler"
      },
      "form": {
        "addTitle": "Yeni bağlantı: {{channel}}",
        "editTitle": "Bağlantıyı düzenle",
        "sections": "Bağlantı bölümleri",
        "name": "Ad",
        "isDefault": "Varsayılan bağlantı",
        "accountId": {
          "whatsappapi": "Telefon numarası kimliği",
          "facebook": "Sayfa kimliği",
          "instagram": "Instagram hesap kimliği"
        },
        "accessToken": "Erişim belirteci",
        "accessTokenKept": "Kayıtlı belirteci korumak için boş bırakın.",
        "allowGroup": "Gruplara izin ver",
        "groupAsTicket": "Grupları talep olarak aç",
        "enabled": "Etkin",
        "disabled": "Devre dışı",
        "queues": "Kuyruklar",
        "noQueues": "Henüz kuyruk yok.",
        "token": "API belirteci",
        "tokenHelp": "Mesaj API’si kullanır; yenisini üretin veya kopyalayın.",
        "generateToken": "Belirteç üret",
        "copyToken": "Belirteci kopyala",
        "tokenCopied": "Belirteç kopyalandı.",
        "tokenCopyFailed": "Belirteç kopyalanamadı.",
        "badToken": "16 ile 100 arası harf, rakam, _ veya -",
        "badAccountId": "Yalnızca rakam",
        "badNumber": "Tam sayı kullanın",
        "integration": "Entegrasyon",
        "prompt": "İstem",
        "none": "Yok",
        "noIntegrations": "Henüz entegrasyon yok",
        "noPrompts": "Henüz istem yok",
        "minutes_one": "{{count}} dakika",
        "minutes_other": "{{count}} dakika",
        "greeting": "Karşılama mesajı",
        "greetingHelp": "Birden fazla kuyrukta zorunludur.",
        "greetingRequired": "Bağlantının birden fazla kuyruğu olduğunda karşılama mesajı zorunludur.",
        "completion": "Kapanış mesajı",
        "outOfHours": "Mesai dışı mesajı",
        "rating": "Değerlendirme mesajı",
        "timeInactive": "Hareketsizlik mesajından önce yanıtsız dakika",
        "inactive": "Hareketsizlik mesajı",
        "expiresInactive": "Hareketsizlikten kapanırken gönderilecek mesaj",
        "maxUseBotQueues": "Botun menüyü tekrar sayısı",
        "timeUseBotQueues": "Bot aralığı (dakika)",
        "timeSendQueue": "Kuyruğa gönderme süresi",
        "sendIdQueue": "Hedef kuyruk",
        "expiresTicket": "Yanıtsız talepleri kapatma süresi (dakika)",
        "whenExpiresTicket": "Son mesaj şuysa kapat",
        "whenExpires": {
          "0": "müşterinin veya temsilcinin",
          "1": "temsilcinin"
        },
        "timeCreateNewTicket": "Yeni talep süresi (dakika)",
        "maxUseBotQueuesNPS": "Değerlendirmenin sorulma sayısı",
        "expiresTicketNPS": "Değerlendirmenin süresi (dakika)",
        "add": "Ekle",
        "save": "Kaydet",
        "greetingMedia": "Karşılama medyası (görsel, ses, video veya belge, en fazla 16 MB)",
        "greetingMediaTooBig": "Dosya 16 MB'tan büyük.",
        "greetingMediaRemove": "Mevcut medyayı kaldır ({{name}})"
      }
    }
  }
} as const;
