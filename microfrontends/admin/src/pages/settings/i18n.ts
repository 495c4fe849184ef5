/** The settings page's texts (namespace `admin`, key `settings`), registered when the page's code loads (index.ts). */
export const texts = {
  "pt-BR": {
    "settings": {
      "title": "Configurações",
      "tabs": {
        "options": "Opções",
        "schedules": "Horários",
        "companies": "Empresas",
        "plans": "Planos",
        "helps": "Ajuda"
      },
      "saveHours": "Salvar horários",
      "options": {
        "userCreation": "Criação de usuários",
        "userRating": "Avaliação do atendimento",
        "scheduleType": "Gerenciamento de expediente",
        "chatBotType": "Tipo do chatbot",
        "acceptCallWhatsapp": "Informar que não aceita ligações",
        "userRandom": "Escolher atendente aleatório",
        "sendGreetingMessageOneQueues": "Enviar saudação quando houver só uma fila",
        "sendSignMessage": "Assinar as mensagens",
        "sendFarewellWaitingTicket": "Despedida ao encerrar atendimentos aguardando",
        "sendGreetingAccepted": "Saudação ao aceitar o atendimento",
        "sendQueuePosition": "Informar a posição na fila",
        "acceptAudioMessageContact": "Aceitar áudios dos contatos",
        "sendMsgTransfTicket": "Avisar o contato na transferência",
        "CheckMsgIsGroup": "Ignorar mensagens de grupos",
        "requiredTag": "Tag obrigatória para encerrar",
        "enableLGPD": "Habilitar LGPD",
        "lgpdDeleteMessage": "Ocultar mensagens apagadas pelo contato",
        "lgpdHideNumber": "Ocultar o número do contato",
        "lgpdConsent": "Pedir consentimento de dados",
        "lgpdMessage": "Mensagem de boas-vindas da LGPD",
        "lgpdLink": "Link da política de privacidade",
        "hoursCloseTicketsAuto": "Encerrar atendimentos abertos após (horas)",
        "timeZone": "Fuso horário"
      },
      "values": {
        "enabled": "Habilitado",
        "disabled": "Desabilitado",
        "queue": "Por fila",
        "company": "Por empresa",
        "connection": "Por conexão",
        "text": "Texto",
        "button": "Botões",
        "list": "Lista"
      },
      "plans": {
        "title": "Planos",
        "count": "{{count}} plano(s)",
        "search": "Pesquisar planos",
        "add": "Adicionar plano",
        "empty": "Nenhum plano cadastrado.",
        "columns": {
          "name": "Nome",
          "users": "Usuários",
          "connections": "Conexões",
          "queues": "Filas",
          "amount": "Valor",
          "public": "Público",
          "features": "Recursos",
          "actions": "Ações"
        },
        "edit": "Editar {{name}}",
        "delete": "Excluir {{name}}",
        "confirmTitle": "Excluir o plano {{name}}?",
        "confirmMessage": "Esta ação não pode ser desfeita. Um plano em uso por uma empresa não pode ser excluído.",
        "confirm": "Excluir",
        "addTitle": "Adicionar plano",
        "editTitle": "Editar plano",
        "form": {
          "name": "Nome",
          "amount": "Valor (R$)",
          "users": "Usuários",
          "connections": "Conexões",
          "queues": "Filas",
          "public": "Visível no cadastro (público)",
          "features": "Recursos do plano",
          "add": "Adicionar",
          "save": "Salvar"
        },
        "errors": {
          "number": "Informe um número inteiro de 0 a 1.000.000",
          "amount": "Informe um valor como 99,90"
        },
        "features": {
          "useWhatsapp": "WhatsApp",
          "useFacebook": "Facebook",
          "useInstagram": "Instagram",
          "useCampaigns": "Campanhas",
          "useSchedules": "Agendamentos",
          "useInternalChat": "Chat interno",
          "useExternalApi": "API externa",
          "useKanban": "Kanban",
          "useOpenAi": "OpenAI",
          "useIntegration": "Integrações"
        }
      },
      "helps": {
        "title": "Ajuda",
        "count": "{{count}} vídeo(s)",
        "add": "Adicionar ajuda",
        "empty": "Nenhuma ajuda cadastrada.",
        "columns": {
          "title": "Título",
          "video": "Vídeo",
          "description": "Descrição",
          "actions": "Ações"
        },
        "edit": "Editar {{name}}",
        "delete": "Excluir {{name}}",
        "confirmTitle": "Excluir a ajuda {{name}}?",
        "confirmMessage": "Esta ação não pode ser desfeita.",
        "confirm": "Excluir",
        "addTitle": "Adicionar ajuda",
        "editTitle": "Editar ajuda",
        "form": {
          "title": "Título",
          "video": "Código do vídeo",
          "videoHelp": "O código do vídeo no YouTube (ex.: dQw4w9WgXcQ).",
          "description": "Descrição",
          "link": "Link (opcional)",
          "add": "Adicionar",
          "save": "Salvar"
        },
        "errors": {
          "link": "Informe um endereço http(s)"
        }
      }
    }
  },
  "en": {
    "settings": {
      "title": "Settings",
      "tabs": {
        "options": "Options",
        "schedules": "Hours",
        "companies": "Companies",
        "plans": "Plans",
        "helps": "Helps"
      },
      "saveHours": "Save hours",
      "options": {
        "userCreation": "User creation",
        "userRating": "Service rating",
        "scheduleType": "Opening hours by",
        "chatBotType": "Chatbot type",
        "acceptCallWhatsapp": "Tell callers calls are not taken",
        "userRandom": "Pick a random attendant",
        "sendGreetingMessageOneQueues": "Greet when there is a single queue",
        "sendSignMessage": "Sign messages",
        "sendFarewellWaitingTicket": "Farewell when closing waiting tickets",
        "sendGreetingAccepted": "Greet when a ticket is accepted",
        "sendQueuePosition": "Tell the position in the queue",
        "acceptAudioMessageContact": "Accept contacts' audio",
        "sendMsgTransfTicket": "Tell the contact about transfers",
        "CheckMsgIsGroup": "Ignore group messages",
        "requiredTag": "Tag required to close",
        "enableLGPD": "Enable LGPD",
        "lgpdDeleteMessage": "Hide messages the contact deleted",
        "lgpdHideNumber": "Hide the contact's number",
        "lgpdConsent": "Ask for data consent",
        "lgpdMessage": "LGPD welcome message",
        "lgpdLink": "Privacy policy link",
        "hoursCloseTicketsAuto": "Close open tickets after (hours)",
        "timeZone": "Time zone"
      },
      "values": {
        "enabled": "Enabled",
        "disabled": "Disabled",
        "queue": "By queue",
        "company": "By company",
        "connection": "By connection",
        "text": "Text",
        "button": "Buttons",
        "list": "List"
      },
      "plans": {
        "title": "Plans",
        "count": "{{count}} plan(s)",
        "search": "Search plans",
        "add": "Add plan",
        "empty": "No plans yet.",
        "columns": {
          "name": "Name",
          "users": "Users",
          "connections": "Connections",
          "queues": "Queues",
          "amount": "Amount",
          "public": "Public",
          "features": "Features",
          "actions": "Actions"
        },
        "edit": "Edit {{name}}",
        "delete": "Delete {{name}}",
        "confirmTitle": "Delete the plan {{name}}?",
        "confirmMessage": "This cannot be undone. A plan a company uses cannot be deleted.",
        "confirm": "Delete",
        "addTitle": "Add plan",
        "editTitle": "Edit plan",
        "form": {
          "name": "Name",
          "amount": "Amount (R$)",
          "users": "Users",
          "connections": "Connections",
          "queues": "Queues",
          "public": "Offered at sign-up (public)",
          "features": "Plan features",
          "add": "Add",
          "save": "Save"
        },
        "errors": {
          "number": "Enter a whole number from 0 to 1,000,000",
          "amount": "Enter an amount such as 99.90"
        },
        "features": {
          "useWhatsapp": "WhatsApp",
          "useFacebook": "Facebook",
          "useInstagram": "Instagram",
          "useCampaigns": "Campaigns",
          "useSchedules": "Schedules",
          "useInternalChat": "Internal chat",
          "useExternalApi": "External API",
          "useKanban": "Kanban",
          "useOpenAi": "OpenAI",
          "useIntegration": "Integrations"
        }
      },
      "helps": {
        "title": "Helps",
        "count": "{{count}} video(s)",
        "add": "Add help",
        "empty": "No help entries yet.",
        "columns": {
          "title": "Title",
          "video": "Video",
          "description": "Description",
          "actions": "Actions"
        },
        "edit": "Edit {{name}}",
        "delete": "Delete {{name}}",
        "confirmTitle": "Delete the help {{name}}?",
        "confirmMessage": "This cannot be undone.",
        "confirm": "Delete",
        "addTitle": "Add help",
        "editTitle": "Edit help",
        "form": {
          "title": "Title",
          "video": "Video code",
          "videoHelp": "The video's YouTube code (e.g. dQw4w9WgXcQ).",
          "description": "Description",
          "link": "Link (optional)",
          "add": "Add",
          "save": "Save"
        },
        "errors": {
          "link": "Enter an http(s) address"
        }
      }
    }
  },
  "es": {
    "settings": {
      "title": "Configuración",
      "tabs": {
        "options": "Opciones",
        "schedules": "Horarios",
        "companies": "Empresas",
        "plans": "Planes",
        "helps": "Ayuda"
      },
      "saveHours": "Guardar horarios",
      "options": {
        "userCreation": "Creación de usuarios",
        "userRating": "Valoración de la atención",
        "scheduleType": "Horario por",
        "chatBotType": "Tipo de chatbot",
        "acceptCallWhatsapp": "Avisar que no se aceptan llamadas",
        "userRandom": "Elegir agente al azar",
        "sendGreetingMessageOneQueues": "Saludar cuando hay una sola cola",
        "sendSignMessage": "Firmar los mensajes",
        "sendFarewellWaitingTicket": "Despedida al cerrar atenciones en espera",
        "sendGreetingAccepted": "Saludar al aceptar la atención",
        "sendQueuePosition": "Informar la posición en la cola",
        "acceptAudioMessageContact": "Aceptar audios de los contactos",
        "sendMsgTransfTicket": "Avisar al contacto en la transferencia",
        "CheckMsgIsGroup": "Ignorar mensajes de grupos",
        "requiredTag": "Etiqueta obligatoria para cerrar",
        "enableLGPD": "Habilitar LGPD",
        "lgpdDeleteMessage": "Ocultar mensajes borrados por el contacto",
        "lgpdHideNumber": "Ocultar el número del contacto",
        "lgpdConsent": "Pedir consentimiento de datos",
        "lgpdMessage": "Mensaje de bienvenida de la LGPD",
        "lgpdLink": "Enlace de la política de privacidad",
        "hoursCloseTicketsAuto": "Cerrar atenciones abiertas después de (horas)",
        "timeZone": "Zona horaria"
      },
      "values": {
        "enabled": "Habilitado",
        "disabled": "Deshabilitado",
        "queue": "Por cola",
        "company": "Por empresa",
        "connection": "Por conexión",
        "text": "Texto",
        "button": "Botones",
        "list": "Lista"
      },
      "plans": {
        "title": "Planes",
        "count": "{{count}} plan(es)",
        "search": "Buscar planes",
        "add": "Agregar plan",
        "empty": "No hay planes.",
        "columns": {
          "name": "Nombre",
          "users": "Usuarios",
          "connections": "Conexiones",
          "queues": "Colas",
          "amount": "Valor",
          "public": "Público",
          "features": "Recursos",
          "actions": "Acciones"
        },
        "edit": "Editar {{name}}",
        "delete": "Eliminar {{name}}",
        "confirmTitle": "¿Eliminar el plan {{name}}?",
        "confirmMessage": "Esta acción no se puede deshacer. Un plan que usa una empresa no se puede eliminar.",
        "confirm": "Eliminar",
        "addTitle": "Agregar plan",
        "editTitle": "Editar plan",
        "form": {
          "name": "Nombre",
          "amount": "Valor (R$)",
          "users": "Usuarios",
          "connections": "Conexiones",
          "queues": "Colas",
          "public": "Visible en el registro (público)",
          "features": "Recursos del plan",
          "add": "Agregar",
          "save": "Guardar"
        },
        "errors": {
          "number": "Indique un número entero de 0 a 1.000.000",
          "amount": "Indique un valor como 99,90"
        },
        "features": {
          "useWhatsapp": "WhatsApp",
          "useFacebook": "Facebook",
          "useInstagram": "Instagram",
          "useCampaigns": "Campañas",
          "useSchedules": "Agendamientos",
          "useInternalChat": "Chat interno",
          "useExternalApi": "API externa",
          "useKanban": "Kanban",
          "useOpenAi": "OpenAI",
          "useIntegration": "Integraciones"
        }
      },
      "helps": {
        "title": "Ayuda",
        "count": "{{count}} video(s)",
        "add": "Agregar ayuda",
        "empty": "No hay ayudas.",
        "columns": {
          "title": "Título",
          "video": "Video",
          "description": "Descripción",
          "actions": "Acciones"
        },
        "edit": "Editar {{name}}",
        "delete": "Eliminar {{name}}",
        "confirmTitle": "¿Eliminar la ayuda {{name}}?",
        "confirmMessage": "Esta acción no se puede deshacer.",
        "confirm": "Eliminar",
        "addTitle": "Agregar ayuda",
        "editTitle": "Editar ayuda",
        "form": {
          "title": "Título",
          "video": "Código del video",
          "videoHelp": "El código del video en YouTube (p. ej. dQw4w9WgXcQ).",
          "description": "Descripción",
          "link": "Enlace (opcional)",
          "add": "Agregar",
          "save": "Guardar"
        },
        "errors": {
          "link": "Indique una dirección http(s)"
        }
      }
    }
  },
  "tr": {
    "settings": {
      "title": "Ayarlar",
      "tabs": {
        "options": "Seçenekler",
        "schedules": "Saatler",
        "companies": "Şirketler",
        "plans": "Planlar",
        "helps": "Yardım"
      },
      "saveHours": "Saatleri kaydet",
      "options": {
        "userCreation": "Kullanıcı oluşturma",
        "userRating": "Hizmet değerlendirmesi",
        "scheduleType": "Çalışma saatleri",
        "chatBotType": "Sohbet botu türü",
        "acceptCallWhatsapp": "Aramaların kabul edilmediğini bildir",
        "userRandom": "Rastgele temsilci seç",
        "sendGreetingMessageOneQueues": "Tek kuyruk varken karşıla",
        "sendSignMessage": "Mesajları imzala",
        "sendFarewellWaitingTicket": "Bekleyen talepleri kapatırken veda et",
        "sendGreetingAccepted": "Talep kabul edilince karşıla",
        "sendQueuePosition": "Kuyruktaki sırayı bildir",
        "acceptAudioMessageContact": "Kişilerden sesli mesaj kabul et",
        "sendMsgTransfTicket": "Aktarımda kişiyi bilgilendir",
        "CheckMsgIsGroup": "Grup mesajlarını yok say",
        "requiredTag": "Kapatmak için etiket zorunlu",
        "enableLGPD": "LGPD’yi etkinleştir",
        "lgpdDeleteMessage": "Kişinin sildiği mesajları gizle",
        "lgpdHideNumber": "Kişinin numarasını gizle",
        "lgpdConsent": "Veri izni iste",
        "lgpdMessage": "LGPD karşılama mesajı",
        "lgpdLink": "Gizlilik politikası bağlantısı",
        "hoursCloseTicketsAuto": "Açık talepleri kapatma süresi (saat)",
        "timeZone": "Saat dilimi"
      },
      "values": {
        "enabled": "Etkin",
        "disabled": "Devre dışı",
        "queue": "Kuyruğa göre",
        "company": "Şirkete göre",
        "connection": "Bağlantıya göre",
        "text": "Metin",
        "button": "Düğmeler",
        "list": "Liste"
      },
      "plans": {
        "title": "Planlar",
        "count": "{{count}} plan",
        "search": "Plan ara",
        "add": "Plan ekle",
        "empty": "Henüz plan yok.",
        "columns": {
          "name": "Ad",
          "users": "Kullanıcılar",
          "connections": "Bağlantılar",
          "queues": "Kuyruklar",
          "amount": "Tutar",
          "public": "Herkese açık",
          "features": "Özellikler",
          "actions": "İşlemler"
        },
        "edit": "{{name}} düzenle",
        "delete": "{{name}} sil",
        "confirmTitle": "{{name}} planı silinsin mi?",
        "confirmMessage": "Bu işlem geri alınamaz. Bir şirketin kullandığı plan silinemez.",
        "confirm": "Sil",
        "addTitle": "Plan ekle",
        "editTitle": "Planı düzenle",
        "form": {
          "name": "Ad",
          "amount": "Tutar (R$)",
          "users": "Kullanıcılar",
          "connections": "Bağlantılar",
          "queues": "Kuyruklar",
          "public": "Kayıtta sunulur (herkese açık)",
          "features": "Plan özellikleri",
          "add": "Ekle",
          "save": "Kaydet"
        },
        "errors": {
          "number": "0 ile 1.000.000 arasında bir tam sayı girin",
          "amount": "99,90 gibi bir tutar girin"
        },
        "features": {
          "useWhatsapp": "WhatsApp",
          "useFacebook": "Facebook",
          "useInstagram": "Instagram",
          "useCampaigns": "Kampanyalar",
          "useSchedules": "Zamanlamalar",
          "useInternalChat": "Dahili sohbet",
          "useExternalApi": "Harici API",
          "useKanban": "Kanban",
          "useOpenAi": "OpenAI",
          "useIntegration": "Entegrasyonlar"
        }
      },
      "helps": {
        "title": "Yardım",
        "count": "{{count}} video",
        "add": "Yardım ekle",
        "empty": "Henüz yardım kaydı yok.",
        "columns": {
          "title": "Başlık",
          "video": "Video",
          "description": "Açıklama",
          "actions": "İşlemler"
        },
        "edit": "{{name}} düzenle",
        "delete": "{{name}} sil",
        "confirmTitle": "{{name}} yardımı silinsin mi?",
        "confirmMessage": "Bu işlem geri alınamaz.",
        "confirm": "Sil",
        "addTitle": "Yardım ekle",
        "editTitle": "Yardımı düzenle",
        "form": {
          "title": "Başlık",
          "video": "Video kodu",
          "videoHelp": "Videonun YouTube kodu (ör. dQw4w9WgXcQ).",
          "description": "Açıklama",
          "link": "Bağlantı (isteğe bağlı)",
          "add": "Ekle",
          "save": "Kaydet"
        },
        "errors": {
          "link": "Bir http(s) adresi girin"
        }
      }
    }
  }
} as const;
