/** The queue-integrations page's texts (namespace `admin`, key `queueIntegration`), registered when the page's code loads. */
export const texts = {
  "pt-BR": {
    "queueIntegration": {
      "title": "Integrações",
      "count_one": "{{count}} integração",
      "count_many": "{{count}} integrações",
      "count_other": "{{count}} integrações",
      "search": "Pesquisar",
      "add": "Adicionar integração",
      "empty": "Nenhuma integração encontrada.",
      "addTitle": "Adicionar integração",
      "editTitle": "Editar integração",
      "edit": "Editar {{name}}",
      "delete": "Excluir {{name}}",
      "columns": {
        "type": "Tipo",
        "id": "ID",
        "name": "Nome",
        "actions": "Ações"
      },
      "types": {
        "dialogflow": "Dialogflow",
        "n8n": "n8n",
        "webhook": "Webhook",
        "typebot": "Typebot"
      },
      "confirm": {
        "title": "Excluir {{name}}?",
        "message": "Os atendimentos com esta integração voltam para a fila.",
        "confirm": "Excluir"
      },
      "toasts": {
        "added": "Integração adicionada com sucesso.",
        "edited": "Integração editada com sucesso.",
        "tested": "Teste da integração concluído com sucesso.",
        "deleted": "Integração excluída com sucesso."
      },
      "secret": {
        "title": "Segredo de assinatura",
        "message": "Guarde este segredo: ele assina cada envio (cabeçalho X-Atendo-Signature) e não será mostrado de novo.",
        "done": "Entendi"
      },
      "form": {
        "type": "Tipo",
        "name": "Nome",
        "language": "Idioma",
        "projectName": "Nome do projeto",
        "jsonContent": "Conteúdo JSON (conta de serviço)",
        "jsonKept": "Deixe em branco para manter o JSON salvo",
        "urlN8N": "URL",
        "secretHint": "Segredo de assinatura: {{hint}}",
        "typebotSlug": "Typebot Slug",
        "typebotExpires": "Expirar sessão após (minutos)",
        "typebotDelayMessage": "Intervalo entre mensagens (ms)",
        "typebotKeywordFinish": "Palavra para finalizar",
        "typebotKeywordRestart": "Palavra para reiniciar o fluxo",
        "typebotUnknownMessage": "Mensagem de opção inválida",
        "typebotRestartMessage": "Mensagem ao reiniciar",
        "test": "Testar",
        "add": "Adicionar",
        "save": "Salvar",
        "badUrl": "Informe uma URL http(s)",
        "badNumber": "Informe um número válido"
      }
    }
  },
  "en": {
    "queueIntegration": {
      "title": "Integrations",
      "count_one": "{{count}} integration",
      "count_other": "{{count}} integrations",
      "search": "Search",
      "add": "Add integration",
      "empty": "No integrations found.",
      "addTitle": "Add integration",
      "editTitle": "Edit integration",
      "edit": "Edit {{name}}",
      "delete": "Delete {{name}}",
      "columns": {
        "type": "Type",
        "id": "ID",
        "name": "Name",
        "actions": "Actions"
      },
      "types": {
        "dialogflow": "Dialogflow",
        "n8n": "n8n",
        "webhook": "Webhook",
        "typebot": "Typebot"
      },
      "confirm": {
        "title": "Delete {{name}}?",
        "message": "Tickets handled by this integration go back to their queue.",
        "confirm": "Delete"
      },
      "toasts": {
        "added": "Integration added.",
        "edited": "Integration edited.",
        "tested": "Integration test passed.",
        "deleted": "Integration deleted."
      },
      "secret": {
        "title": "Signing secret",
        "message": "Keep this secret: it signs every delivery (X-Atendo-Signature header) and will not be shown again.",
        "done": "Got it"
      },
      "form": {
        "type": "Type",
        "name": "Name",
        "language": "Language",
        "projectName": "Project name",
        "jsonContent": "JSON content (service account)",
        "jsonKept": "Leave empty to keep the saved JSON",
        "urlN8N": "URL",
        "secretHint": "Signing secret: {{hint}}",
        "typebotSlug": "Typebot slug",
        "typebotExpires": "Expire session after (minutes)",
        "typebotDelayMessage": "Delay between messages (ms)",
        "typebotKeywordFinish": "Keyword to finish",
        "typebotKeywordRestart": "Keyword to restart the flow",
        "typebotUnknownMessage": "Invalid option message",
        "typebotRestartMessage": "Restart message",
        "test": "Test",
        "add": "Add",
        "save": "Save",
        "badUrl": "Enter an http(s) URL",
        "badNumber": "Enter a valid number"
      }
    }
  },
  "es": {
    "queueIntegration": {
      "title": "Integraciones",
      "count_one": "{{count}} integración",
      "count_many": "{{count}} integraciones",
      "count_other": "{{count}} integraciones",
      "search": "Buscar",
      "add": "Agregar integración",
      "empty": "No se encontraron integraciones.",
      "addTitle": "Agregar integración",
      "editTitle": "Editar integración",
      "edit": "Editar {{name}}",
      "delete": "Eliminar {{name}}",
      "columns": {
        "type": "Tipo",
        "id": "ID",
        "name": "Nombre",
        "actions": "Acciones"
      },
      "types": {
        "dialogflow": "Dialogflow",
        "n8n": "n8n",
        "webhook": "Webhook",
        "typebot": "Typebot"
      },
      "confirm": {
        "title": "¿Eliminar {{name}}?",
        "message": "Los tickets con esta integración vuelven a su cola.",
        "confirm": "Eliminar"
      },
      "toasts": {
        "added": "Integración agregada.",
        "edited": "Integración editada.",
        "tested": "Prueba de la integración superada.",
        "deleted": "Integración eliminada."
      },
      "secret": {
        "title": "Secreto de firma",
        "message": "Guarde este secreto: firma cada envío (cabecera X-Atendo-Signature) y no se mostrará de nuevo.",
        "done": "Entendido"
      },
      "form": {
        "type": "Tipo",
        "name": "Nombre",
        "language": "Idioma",
        "projectName": "Nombre del proyecto",
        "jsonContent": "Contenido JSON (cuenta de servicio)",
        "jsonKept": "Déjelo vacío para mantener el JSON guardado",
        "urlN8N": "URL",
        "secretHint": "Secreto de firma: {{hint}}",
        "typebotSlug": "Slug de Typebot",
        "typebotExpires": "Expirar sesión después de (minutos)",
        "typebotDelayMessage": "Intervalo entre mensajes (ms)",
        "typebotKeywordFinish": "Palabra para finalizar",
        "typebotKeywordRestart": "Palabra para reiniciar el flujo",
        "typebotUnknownMessage": "Mensaje de opción inválida",
        "typebotRestartMessage": "Mensaje al reiniciar",
        "test": "Probar",
        "add": "Agregar",
        "save": "Guardar",
        "badUrl": "Ingrese una URL http(s)",
        "badNumber": "Ingrese un número válido"
      }
    }
  },
  "tr": {
    "queueIntegration": {
      "title": "Entegrasyonlar",
      "count_one": "{{count}} entegrasyon",
      "count_other": "{{count}} entegrasyon",
      "search": "Ara",
      "add": "Entegrasyon ekle",
      "empty": "Entegrasyon bulunamadı.",
      "addTitle": "Entegrasyon ekle",
      "editTitle": "Entegrasyonu düzenle",
      "edit": "{{name}} düzenle",
      "delete": "{{name}} sil",
      "columns": {
        "type": "Tür",
        "id": "ID",
        "name": "Ad",
        "actions": "İşlemler"
      },
      "types": {
        "dialogflow": "Dialogflow",
        "n8n": "n8n",
        "webhook": "Webhook",
        "typebot": "Typebot"
      },
      "confirm": {
        "title": "{{name}} silinsin mi?",
        "message": "Bu entegrasyonun yürüttüğü talepler kuyruklarına döner.",
        "confirm": "Sil"
      },
      "toasts": {
        "added": "Entegrasyon eklendi.",
        "edited": "Entegrasyon düzenlendi.",
        "tested": "Entegrasyon testi başarılı.",
        "deleted": "Entegrasyon silindi."
      },
      "secret": {
        "title": "İmza anahtarı",
        "message": "Bu anahtarı saklayın: her gönderimi imzalar (X-Atendo-Signature başlığı) ve bir daha gösterilmez.",
        "done": "Anladım"
      },
      "form": {
        "type": "Tür",
        "name": "Ad",
        "language": "Dil",
        "projectName": "Proje adı",
        "jsonContent": "JSON içeriği (hizmet hesabı)",
        "jsonKept": "Kayıtlı JSON'u korumak için boş bırakın",
        "urlN8N": "URL",
        "secretHint": "İmza anahtarı: {{hint}}",
        "typebotSlug": "Typebot kısa adı",
        "typebotExpires": "Oturum süresi (dakika)",
        "typebotDelayMessage": "Mesajlar arası bekleme (ms)",
        "typebotKeywordFinish": "Bitirme kelimesi",
        "typebotKeywordRestart": "Akışı yeniden başlatma kelimesi",
        "typebotUnknownMessage": "Geçersiz seçenek mesajı",
        "typebotRestartMessage": "Yeniden başlatma mesajı",
        "test": "Test et",
        "add": "Ekle",
        "save": "Kaydet",
        "badUrl": "http(s) adresi girin",
        "badNumber": "Geçerli bir sayı girin"
      }
    }
  }
} as const;
