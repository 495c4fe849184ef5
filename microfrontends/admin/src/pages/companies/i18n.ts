/** The companies page's texts (namespace `admin`, key `companies`), registered when the page's code loads (index.ts). */
export const texts = {
  "pt-BR": {
    "companies": {
      "title": "Empresas",
      "search": "Pesquisar",
      "add": "Adicionar empresa",
      "count_one": "{{count}} empresa",
      "count_many": "{{count}} empresas",
      "count_other": "{{count}} empresas",
      "empty": "Nenhuma empresa encontrada.",
      "columns": {
        "id": "ID",
        "status": "Ativa",
        "name": "Nome",
        "email": "E-mail",
        "plan": "Plano",
        "amount": "Valor",
        "createdAt": "Criada em",
        "dueDate": "Vencimento",
        "lastLogin": "Último acesso",
        "actions": "Ações"
      },
      "recurrence": {
        "MONTHLY": "Mensal",
        "BIMONTHLY": "Bimestral",
        "QUARTERLY": "Trimestral",
        "SEMESTER": "Semestral",
        "YEARLY": "Anual"
      },
      "renew": "Renovar {{name}}",
      "edit": "Editar {{name}}",
      "delete": "Excluir {{name}}",
      "confirm": {
        "title": "Excluir {{name}}?",
        "message": "A empresa, seus usuários e registros serão excluídos.",
        "confirm": "Excluir"
      },
      "form": {
        "addTitle": "Adicionar empresa",
        "editTitle": "Editar empresa",
        "name": "Nome",
        "email": "E-mail",
        "password": "Senha",
        "passwordHelp": "Senha do primeiro administrador da empresa.",
        "passwordKeep": "Deixe em branco para manter a senha.",
        "plan": "Plano",
        "choosePlan": "Escolha um plano",
        "phone": "Telefone",
        "document": "Documento",
        "numberAttendants": "Número de atendentes",
        "numberConections": "Número de conexões",
        "badNumber": "Use um número inteiro",
        "dueDate": "Vencimento",
        "recurrence": "Recorrência",
        "active": "Ativa",
        "add": "Adicionar",
        "save": "Salvar"
      }
    }
  },
  "en": {
    "companies": {
      "title": "Companies",
      "search": "Search",
      "add": "Add company",
      "count_one": "{{count}} company",
      "count_other": "{{count}} companies",
      "empty": "No companies found.",
      "columns": {
        "id": "ID",
        "status": "Active",
        "name": "Name",
        "email": "Email",
        "plan": "Plan",
        "amount": "Value",
        "createdAt": "Created",
        "dueDate": "Due date",
        "lastLogin": "Last login",
        "actions": "Actions"
      },
      "recurrence": {
        "MONTHLY": "Monthly",
        "BIMONTHLY": "Bimonthly",
        "QUARTERLY": "Quarterly",
        "SEMESTER": "Half-yearly",
        "YEARLY": "Yearly"
      },
      "renew": "Renew {{name}}",
      "edit": "Edit {{name}}",
      "delete": "Delete {{name}}",
      "confirm": {
        "title": "Delete {{name}}?",
        "message": "The company, its users and its records will be deleted.",
        "confirm": "Delete"
      },
      "form": {
        "addTitle": "Add company",
        "editTitle": "Edit company",
        "name": "Name",
        "email": "Email",
        "password": "Password",
        "passwordHelp": "The password of the company's first admin.",
        "passwordKeep": "Leave blank to keep the password.",
        "plan": "Plan",
        "choosePlan": "Choose a plan",
        "phone": "Phone",
        "document": "Document",
        "numberAttendants": "Number of attendants",
        "numberConections": "Number of connections",
        "badNumber": "Use a whole number",
        "dueDate": "Due date",
        "recurrence": "Recurrence",
        "active": "Active",
        "add": "Add",
        "save": "Save"
      }
    }
  },
  "es": {
    "companies": {
      "title": "Empresas",
      "search": "Buscar",
      "add": "Agregar empresa",
      "count_one": "{{count}} empresa",
      "count_many": "{{count}} empresas",
      "count_other": "{{count}} empresas",
      "empty": "No se encontraron empresas.",
      "columns": {
        "id": "ID",
        "status": "Activa",
        "name": "Nombre",
        "email": "Correo",
        "plan": "Plan",
        "amount": "Valor",
        "createdAt": "Creada",
        "dueDate": "Vencimiento",
        "lastLogin": "Último acceso",
        "actions": "Acciones"
      },
      "recurrence": {
        "MONTHLY": "Mensual",
        "BIMONTHLY": "Bimestral",
        "QUARTERLY": "Trimestral",
        "SEMESTER": "Semestral",
        "YEARLY": "Anual"
      },
      "renew": "Renovar {{name}}",
      "edit": "Editar {{name}}",
      "delete": "Eliminar {{name}}",
      "confirm": {
        "title": "¿Eliminar {{name}}?",
        "message": "Se eliminarán la empresa, sus usuarios y sus registros.",
        "confirm": "Eliminar"
      },
      "form": {
        "addTitle": "Agregar empresa",
        "editTitle": "Editar empresa",
        "name": "Nombre",
        "email": "Correo",
        "password": "Contraseña",
        "passwordHelp": "La contraseña del primer administrador de la empresa.",
        "passwordKeep": "Déjela en blanco para mantener la contraseña.",
        "plan": "Plan",
        "choosePlan": "Elija un plan",
        "phone": "Teléfono",
        "document": "Documento",
        "numberAttendants": "Número de agentes",
        "numberConections": "Número de conexiones",
        "badNumber": "Use un número entero",
        "dueDate": "Vencimiento",
        "recurrence": "Recurrencia",
        "active": "Activa",
        "add": "Agregar",
        "save": "Guardar"
      }
    }
  },
  "tr": {
    "companies": {
      "title": "Şirketler",
      "search": "Ara",
      "add": "Şirket ekle",
      "count_one": "{{count}} şirket",
      "count_other": "{{count}} şirket",
      "empty": "Şirket bulunamadı.",
      "columns": {
        "id": "ID",
        "status": "Etkin",
        "name": "Ad",
        "email": "E-posta",
        "plan": "Plan",
        "amount": "Tutar",
        "createdAt": "Oluşturma",
        "dueDate": "Son ödeme",
        "lastLogin": "Son giriş",
        "actions": "İşlemler"
      },
      "recurrence": {
        "MONTHLY": "Aylık",
        "BIMONTHLY": "İki aylık",
        "QUARTERLY": "Üç aylık",
        "SEMESTER": "Altı aylık",
        "YEARLY": "Yıllık"
      },
      "renew": "{{name}} yenile",
      "edit": "{{name}} düzenle",
      "delete": "{{name}} sil",
      "confirm": {
        "title": "{{name}} silinsin mi?",
        "message": "Şirket, kullanıcıları ve kayıtları silinecek.",
        "confirm": "Sil"
      },
      "form": {
        "addTitle": "Şirket ekle",
        "editTitle": "Şirketi düzenle",
        "name": "Ad",
        "email": "E-posta",
        "password": "Parola",
        "passwordHelp": "Şirketin ilk yöneticisinin parolası.",
        "passwordKeep": "Parolayı korumak için boş bırakın.",
        "plan": "Plan",
        "choosePlan": "Bir plan seçin",
        "phone": "Telefon",
        "document": "Belge",
        "numberAttendants": "Temsilci sayısı",
        "numberConections": "Bağlantı sayısı",
        "badNumber": "Tam sayı girin",
        "dueDate": "Son ödeme",
        "recurrence": "Yineleme",
        "active": "Etkin",
        "add": "Ekle",
        "save": "Kaydet"
      }
    }
  }
} as const;
