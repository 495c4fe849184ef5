/** The on-duty roster page's texts (namespace `admin`, key `plantao`), registered when the page loads. */
export const texts = {
  "pt-BR": {
    "plantao": {
      "title": "Plantão",
      "add": "Adicionar",
      "empty": "Nenhum plantonista cadastrado.",
      "count": "{{count}} plantonista(s)",
      "cols": {
        "id": "ID",
        "user": "Plantonista",
        "phone": "Telefone",
        "hours": "Horários",
        "actions": "Ações"
      },
      "edit": "Editar {{name}}",
      "delete": "Remover {{name}}",
      "addTitle": "Adicionar plantonista",
      "editTitle": "Editar plantonista",
      "user": "Plantonista",
      "selectUser": "Selecione…",
      "phone": "Telefone",
      "interval": "Intervalo entre notificações (minutos)",
      "start": "Início",
      "end": "Fim",
      "weekday": "Dia",
      "save": "Salvar",
      "off": "Sem plantão",
      "confirmTitle": "Remover o plantão de {{name}}?",
      "confirmMessage": "O plantonista deixará de receber avisos.",
      "confirm": "Remover",
      "deleted": "Plantão removido com sucesso.",
      "saved": "Plantão salvo com sucesso.",
      "errors": {
        "user": "Informe o usuário",
        "phone": "Informe o telefone",
        "interval": "Informe o intervalo entre notificações",
        "start": "Informe o início do plantão",
        "end": "Informe o fim do plantão",
        "oneDay": "Pelo menos um dia da semana deve ter o horário de início e fim preenchido",
        "time": "Use o formato HH:MM"
      }
    }
  },
  "en": {
    "plantao": {
      "title": "On duty",
      "add": "Add",
      "empty": "Nobody is on the roster yet.",
      "count": "{{count}} on duty",
      "cols": {
        "id": "ID",
        "user": "On duty",
        "phone": "Phone",
        "hours": "Hours",
        "actions": "Actions"
      },
      "edit": "Edit {{name}}",
      "delete": "Remove {{name}}",
      "addTitle": "Add on-duty person",
      "editTitle": "Edit on-duty person",
      "user": "On-duty person",
      "selectUser": "Select…",
      "phone": "Phone",
      "interval": "Minutes between notifications",
      "start": "Start",
      "end": "End",
      "weekday": "Day",
      "save": "Save",
      "off": "Off duty",
      "confirmTitle": "Remove {{name}}'s duty?",
      "confirmMessage": "They will no longer be notified.",
      "confirm": "Remove",
      "deleted": "On-duty entry removed.",
      "saved": "On-duty entry saved.",
      "errors": {
        "user": "Choose the user",
        "phone": "Enter the phone",
        "interval": "Enter the minutes between notifications",
        "start": "Enter the start of the duty",
        "end": "Enter the end of the duty",
        "oneDay": "At least one weekday needs both a start and an end time",
        "time": "Use the HH:MM format"
      }
    }
  },
  "es": {
    "plantao": {
      "title": "Guardia",
      "add": "Agregar",
      "empty": "Nadie está de guardia todavía.",
      "count": "{{count}} de guardia",
      "cols": {
        "id": "ID",
        "user": "De guardia",
        "phone": "Teléfono",
        "hours": "Horarios",
        "actions": "Acciones"
      },
      "edit": "Editar {{name}}",
      "delete": "Eliminar {{name}}",
      "addTitle": "Agregar persona de guardia",
      "editTitle": "Editar persona de guardia",
      "user": "Persona de guardia",
      "selectUser": "Seleccione…",
      "phone": "Teléfono",
      "interval": "Minutos entre notificaciones",
      "start": "Inicio",
      "end": "Fin",
      "weekday": "Día",
      "save": "Guardar",
      "off": "Sin guardia",
      "confirmTitle": "¿Eliminar la guardia de {{name}}?",
      "confirmMessage": "Dejará de recibir avisos.",
      "confirm": "Eliminar",
      "deleted": "Guardia eliminada con éxito.",
      "saved": "Guardia guardada con éxito.",
      "errors": {
        "user": "Informe el usuario",
        "phone": "Informe el teléfono",
        "interval": "Informe el intervalo entre notificaciones",
        "start": "Informe el inicio de la guardia",
        "end": "Informe el fin de la guardia",
        "oneDay": "Al menos un día de la semana debe tener inicio y fin",
        "time": "Use el formato HH:MM"
      }
    }
  },
  "tr": {
    "plantao": {
      "title": "Nöbet",
      "add": "Ekle",
      "empty": "Henüz nöbetçi yok.",
      "count": "{{count}} nöbetçi",
      "cols": {
        "id": "ID",
        "user": "Nöbetçi",
        "phone": "Telefon",
        "hours": "Saatler",
        "actions": "İşlemler"
      },
      "edit": "{{name}} düzenle",
      "delete": "{{name}} kaldır",
      "addTitle": "Nöbetçi ekle",
      "editTitle": "Nöbetçiyi düzenle",
      "user": "Nöbetçi",
      "selectUser": "Seçin…",
      "phone": "Telefon",
      "interval": "Bildirimler arası dakika",
      "start": "Başlangıç",
      "end": "Bitiş",
      "weekday": "Gün",
      "save": "Kaydet",
      "off": "Nöbet yok",
      "confirmTitle": "{{name}} nöbeti kaldırılsın mı?",
      "confirmMessage": "Artık bildirim almayacak.",
      "confirm": "Kaldır",
      "deleted": "Nöbet kaydı kaldırıldı.",
      "saved": "Nöbet kaydı kaydedildi.",
      "errors": {
        "user": "Kullanıcıyı seçin",
        "phone": "Telefonu girin",
        "interval": "Bildirimler arası dakikayı girin",
        "start": "Nöbetin başlangıcını girin",
        "end": "Nöbetin bitişini girin",
        "oneDay": "En az bir gün hem başlangıç hem bitiş saati içermeli",
        "time": "SS:DD biçimini kullanın"
      }
    }
  }
};
