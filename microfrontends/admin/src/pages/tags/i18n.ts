/** The tags pages' texts (namespace `admin`, key `tags`), registered when a tags page's code loads. */
export const texts = {
  "pt-BR": {
    "tags": {
      "search": "Pesquisar",
      "count_one": "{{count}} tag",
      "count_many": "{{count}} tags",
      "count_other": "{{count}} tags",
      "normal": {
        "title": "Tags",
        "add": "Adicionar tag",
        "empty": "Nenhuma tag encontrada.",
        "addTitle": "Adicionar tag",
        "editTitle": "Editar tag"
      },
      "kanban": {
        "title": "Tags do Kanban",
        "add": "Adicionar lane",
        "empty": "Nenhuma tag de Kanban encontrada.",
        "addTitle": "Adicionar tag do Kanban",
        "editTitle": "Editar tag do Kanban"
      },
      "columns": {
        "name": "Nome",
        "contacts": "Contatos",
        "tickets": "Atendimentos",
        "actions": "Ações"
      },
      "edit": "Editar {{name}}",
      "delete": "Excluir {{name}}",
      "confirm": {
        "title": "Excluir {{name}}?",
        "message": "A tag sai dos contatos e atendimentos que a usam.",
        "confirm": "Excluir"
      },
      "toasts": {
        "saved": "Tag salva com sucesso.",
        "deleted": "Tag excluída com sucesso."
      },
      "form": {
        "name": "Nome",
        "color": "Cor",
        "pickColor": "Escolher cor",
        "swatches": "Cores sugeridas",
        "tooShort": "Mensagem muito curta",
        "badColor": "Use uma cor como #ff8800",
        "add": "Adicionar",
        "save": "Salvar"
      }
    }
  },
  "en": {
    "tags": {
      "search": "Search",
      "count_one": "{{count}} tag",
      "count_other": "{{count}} tags",
      "normal": {
        "title": "Tags",
        "add": "Add tag",
        "empty": "No tags found.",
        "addTitle": "Add tag",
        "editTitle": "Edit tag"
      },
      "kanban": {
        "title": "Kanban tags",
        "add": "Add lane",
        "empty": "No Kanban tags found.",
        "addTitle": "Add Kanban tag",
        "editTitle": "Edit Kanban tag"
      },
      "columns": {
        "name": "Name",
        "contacts": "Contacts",
        "tickets": "Tickets",
        "actions": "Actions"
      },
      "edit": "Edit {{name}}",
      "delete": "Delete {{name}}",
      "confirm": {
        "title": "Delete {{name}}?",
        "message": "The tag is removed from the contacts and tickets using it.",
        "confirm": "Delete"
      },
      "toasts": {
        "saved": "Tag saved.",
        "deleted": "Tag deleted."
      },
      "form": {
        "name": "Name",
        "color": "Colour",
        "pickColor": "Pick a colour",
        "swatches": "Suggested colours",
        "tooShort": "Too short",
        "badColor": "Use a colour such as #ff8800",
        "add": "Add",
        "save": "Save"
      }
    }
  },
  "es": {
    "tags": {
      "search": "Buscar",
      "count_one": "{{count}} etiqueta",
      "count_many": "{{count}} etiquetas",
      "count_other": "{{count}} etiquetas",
      "normal": {
        "title": "Etiquetas",
        "add": "Agregar etiqueta",
        "empty": "No se encontraron etiquetas.",
        "addTitle": "Agregar etiqueta",
        "editTitle": "Editar etiqueta"
      },
      "kanban": {
        "title": "Etiquetas del Kanban",
        "add": "Agregar carril",
        "empty": "No se encontraron etiquetas del Kanban.",
        "addTitle": "Agregar etiqueta del Kanban",
        "editTitle": "Editar etiqueta del Kanban"
      },
      "columns": {
        "name": "Nombre",
        "contacts": "Contactos",
        "tickets": "Atenciones",
        "actions": "Acciones"
      },
      "edit": "Editar {{name}}",
      "delete": "Eliminar {{name}}",
      "confirm": {
        "title": "¿Eliminar {{name}}?",
        "message": "La etiqueta se quita de los contactos y atenciones que la usan.",
        "confirm": "Eliminar"
      },
      "toasts": {
        "saved": "Etiqueta guardada.",
        "deleted": "Etiqueta eliminada."
      },
      "form": {
        "name": "Nombre",
        "color": "Color",
        "pickColor": "Elegir color",
        "swatches": "Colores sugeridos",
        "tooShort": "Mensaje muy corto",
        "badColor": "Use un color como #ff8800",
        "add": "Agregar",
        "save": "Guardar"
      }
    }
  },
  "tr": {
    "tags": {
      "search": "Ara",
      "count_one": "{{count}} etiket",
      "count_other": "{{count}} etiket",
      "normal": {
        "title": "Etiketler",
        "add": "Etiket ekle",
        "empty": "Etiket bulunamadı.",
        "addTitle": "Etiket ekle",
        "editTitle": "Etiketi düzenle"
      },
      "kanban": {
        "title": "Kanban etiketleri",
        "add": "Kulvar ekle",
        "empty": "Kanban etiketi bulunamadı.",
        "addTitle": "Kanban etiketi ekle",
        "editTitle": "Kanban etiketini düzenle"
      },
      "columns": {
        "name": "Ad",
        "contacts": "Kişiler",
        "tickets": "Talepler",
        "actions": "İşlemler"
      },
      "edit": "{{name}} düzenle",
      "delete": "{{name}} sil",
      "confirm": {
        "title": "{{name}} silinsin mi?",
        "message": "Etiket, onu kullanan kişi ve taleplerden kaldırılır.",
        "confirm": "Sil"
      },
      "toasts": {
        "saved": "Etiket kaydedildi.",
        "deleted": "Etiket silindi."
      },
      "form": {
        "name": "Ad",
        "color": "Renk",
        "pickColor": "Renk seç",
        "swatches": "Önerilen renkler",
        "tooShort": "Çok kısa",
        "badColor": "#ff8800 gibi bir renk kullanın",
        "add": "Ekle",
        "save": "Kaydet"
      }
    }
  }
} as const;
