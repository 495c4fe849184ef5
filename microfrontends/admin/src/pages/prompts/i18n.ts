/** The prompts page's texts (namespace `admin`, key `prompts`), registered when the page's code loads. */
export const texts = {
  "pt-BR": {
    "prompts": {
      "title": "Prompts",
      "count_one": "{{count}} prompt",
      "count_many": "{{count}} prompts",
      "count_other": "{{count}} prompts",
      "add": "Adicionar prompt",
      "empty": "Nenhum prompt cadastrado.",
      "addTitle": "Adicionar prompt",
      "editTitle": "Editar prompt",
      "edit": "Editar {{name}}",
      "delete": "Excluir {{name}}",
      "columns": {
        "name": "Nome",
        "queue": "Setor",
        "maxTokens": "Máximo de tokens na resposta",
        "actions": "Ações"
      },
      "confirm": {
        "title": "Excluir {{name}}?",
        "message": "Esta ação não pode ser desfeita.",
        "confirm": "Excluir"
      },
      "toasts": {
        "saved": "Prompt salvo com sucesso.",
        "deleted": "Prompt excluído com sucesso."
      },
      "form": {
        "name": "Nome",
        "apiKey": "API Key",
        "showKey": "Mostrar chave",
        "hideKey": "Ocultar chave",
        "prompt": "Prompt",
        "queue": "Setor",
        "selectQueue": "Selecione o setor",
        "queueRequired": "Informe o setor",
        "voice": "Voz",
        "text": "Texto",
        "voiceKey": "Chave da voz",
        "voiceRegion": "Região da voz",
        "temperature": "Temperatura",
        "maxTokens": "Máximo de tokens na resposta",
        "maxMessages": "Máximo de mensagens no histórico",
        "save": "Salvar",
        "badNumber": "Informe um número válido"
      }
    }
  },
  "en": {
    "prompts": {
      "title": "Prompts",
      "count_one": "{{count}} prompt",
      "count_other": "{{count}} prompts",
      "add": "Add prompt",
      "empty": "No prompts yet.",
      "addTitle": "Add prompt",
      "editTitle": "Edit prompt",
      "edit": "Edit {{name}}",
      "delete": "Delete {{name}}",
      "columns": {
        "name": "Name",
        "queue": "Queue",
        "maxTokens": "Max tokens per answer",
        "actions": "Actions"
      },
      "confirm": {
        "title": "Delete {{name}}?",
        "message": "This cannot be undone.",
        "confirm": "Delete"
      },
      "toasts": {
        "saved": "Prompt saved.",
        "deleted": "Prompt deleted."
      },
      "form": {
        "name": "Name",
        "apiKey": "API key",
        "showKey": "Show key",
        "hideKey": "Hide key",
        "prompt": "Prompt",
        "queue": "Queue",
        "selectQueue": "Choose the queue",
        "queueRequired": "Choose a queue",
        "voice": "Voice",
        "text": "Text",
        "voiceKey": "Voice key",
        "voiceRegion": "Voice region",
        "temperature": "Temperature",
        "maxTokens": "Max tokens per answer",
        "maxMessages": "Max messages in the history",
        "save": "Save",
        "badNumber": "Enter a valid number"
      }
    }
  },
  "es": {
    "prompts": {
      "title": "Prompts",
      "count_one": "{{count}} prompt",
      "count_many": "{{count}} prompts",
      "count_other": "{{count}} prompts",
      "add": "Agregar prompt",
      "empty": "No hay prompts.",
      "addTitle": "Agregar prompt",
      "editTitle": "Editar prompt",
      "edit": "Editar {{name}}",
      "delete": "Eliminar {{name}}",
      "columns": {
        "name": "Nombre",
        "queue": "Sector",
        "maxTokens": "Máximo de tokens por respuesta",
        "actions": "Acciones"
      },
      "confirm": {
        "title": "¿Eliminar {{name}}?",
        "message": "Esta acción no se puede deshacer.",
        "confirm": "Eliminar"
      },
      "toasts": {
        "saved": "Prompt guardado.",
        "deleted": "Prompt eliminado."
      },
      "form": {
        "name": "Nombre",
        "apiKey": "Clave de API",
        "showKey": "Mostrar clave",
        "hideKey": "Ocultar clave",
        "prompt": "Prompt",
        "queue": "Sector",
        "selectQueue": "Seleccione el sector",
        "queueRequired": "Indique el sector",
        "voice": "Voz",
        "text": "Texto",
        "voiceKey": "Clave de voz",
        "voiceRegion": "Región de voz",
        "temperature": "Temperatura",
        "maxTokens": "Máximo de tokens por respuesta",
        "maxMessages": "Máximo de mensajes en el historial",
        "save": "Guardar",
        "badNumber": "Ingrese un número válido"
      }
    }
  },
  "tr": {
    "prompts": {
      "title": "İstemler",
      "count_one": "{{count}} istem",
      "count_other": "{{count}} istem",
      "add": "İstem ekle",
      "empty": "Henüz istem yok.",
      "addTitle": "İstem ekle",
      "editTitle": "İstemi düzenle",
      "edit": "{{name}} düzenle",
      "delete": "{{name}} sil",
      "columns": {
        "name": "Ad",
        "queue": "Departman",
        "maxTokens": "Yanıt başına en fazla token",
        "actions": "İşlemler"
      },
      "confirm": {
        "title": "{{name}} silinsin mi?",
        "message": "Bu işlem geri alınamaz.",
        "confirm": "Sil"
      },
      "toasts": {
        "saved": "İstem kaydedildi.",
        "deleted": "İstem silindi."
      },
      "form": {
        "name": "Ad",
        "apiKey": "API anahtarı",
        "showKey": "Anahtarı göster",
        "hideKey": "Anahtarı gizle",
        "prompt": "İstem",
        "queue": "Departman",
        "selectQueue": "Departman seçin",
        "queueRequired": "Bir departman seçin",
        "voice": "Ses",
        "text": "Metin",
        "voiceKey": "Ses anahtarı",
        "voiceRegion": "Ses bölgesi",
        "temperature": "Sıcaklık",
        "maxTokens": "Yanıt başına en fazla token",
        "maxMessages": "Geçmişteki en fazla mesaj",
        "save": "Kaydet",
        "badNumber": "Geçerli bir sayı girin"
      }
    }
  }
} as const;
