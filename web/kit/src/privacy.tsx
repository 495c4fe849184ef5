import { useState, type ReactNode } from 'react';
import { api, toastError } from '@atendo/web-api';
import { CheckboxField } from './fields';
import { ConfirmDialog } from './dialogs';

/**
 * The data subject's actions on a contact (issue 34 item 2; plugins/compliance), shared by the contacts
 * page and the conversation's contact drawer: export everything held about the contact as a JSON file
 * (`GET /contacts/:id/export`), and anonymize it (`POST /contacts/:id/anonymize {confirm: true}`) after a
 * confirmation that names the contact and must be ticked (the action is irreversible). Admins only: the
 * caller renders it for them. Texts come from the area (its translations).
 */
export interface ContactPrivacyTexts {
  export: string;
  anonymize: string;
  confirmTitle: string;
  confirmMessage: string;
  confirmCheck: string;
  confirm: string;
  exported: string;
  anonymized: string;
  cancel: string;
  close: string;
}

/** Downloads contact `id`'s export as `contact-<id>.json`. */
export async function downloadContactExport(id: number): Promise<void> {
  const doc = await api.get<unknown>(`/contacts/${id}/export`);
  const url = URL.createObjectURL(new Blob([JSON.stringify(doc, null, 2)], { type: 'application/json' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = `contact-${id}.json`;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

export function ContactPrivacyActions({
  contact,
  texts,
  renderButton,
  onDone,
}: {
  contact: { id: number; name: string };
  texts: ContactPrivacyTexts;
  /** How the area draws an action (its icon buttons or menu items). */
  renderButton: (action: 'export' | 'anonymize', label: string, onClick: () => void, busy: boolean) => ReactNode;
  /** Called after an action succeeded with its success text (the area shows its toast; after `anonymize`, it reloads the contact). */
  onDone: (action: 'export' | 'anonymize', text: string) => void;
}) {
  const [busy, setBusy] = useState(false);
  const [asking, setAsking] = useState(false);
  const [ticked, setTicked] = useState(false);

  const run = async (fn: () => Promise<void>) => {
    if (busy) return;
    setBusy(true);
    try {
      await fn();
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };
  const doExport = () =>
    run(async () => {
      await downloadContactExport(contact.id);
      onDone('export', texts.exported);
    });
  const doAnonymize = () =>
    run(async () => {
      await api.post(`/contacts/${contact.id}/anonymize`, { confirm: true });
      setAsking(false);
      onDone('anonymize', texts.anonymized);
    });

  return (
    <>
      {renderButton('export', texts.export, () => void doExport(), busy)}
      {renderButton('anonymize', texts.anonymize, () => {
        setTicked(false);
        setAsking(true);
      }, busy)}
      <ConfirmDialog
        open={asking}
        title={texts.confirmTitle}
        message={
          <>
            <p>{texts.confirmMessage}</p>
            <CheckboxField label={texts.confirmCheck} checked={ticked} onChange={setTicked} testId="anonymize-check" />
          </>
        }
        confirmLabel={texts.confirm}
        cancelLabel={texts.cancel}
        closeLabel={texts.close}
        busy={busy || !ticked}
        confirmTestId="anonymize-confirm"
        onConfirm={() => ticked && void doAnonymize()}
        onClose={() => setAsking(false)}
      />
    </>
  );
}

const PRIVACY_TEXTS: Record<'pt-BR' | 'en' | 'es' | 'tr', ContactPrivacyTexts> = {
  'pt-BR': {
    export: 'Exportar dados (LGPD)',
    anonymize: 'Anonimizar contato',
    confirmTitle: 'Anonimizar este contato?',
    confirmMessage: 'Nome, número, e-mail, informações adicionais, foto e o texto e as mídias das conversas deste contato serão apagados. As contagens e avaliações ficam para as estatísticas. Esta ação não pode ser desfeita.',
    confirmCheck: 'Entendo que esta ação é irreversível',
    confirm: 'Anonimizar',
    exported: 'Dados exportados.',
    anonymized: 'Contato anonimizado.',
    cancel: 'Cancelar',
    close: 'Fechar',
  },
  en: {
    export: 'Export data (LGPD)',
    anonymize: 'Anonymize contact',
    confirmTitle: 'Anonymize this contact?',
    confirmMessage: "The name, number, e-mail, extra info, picture and the text and media of this contact's conversations will be erased. Counts and ratings stay for statistics. This cannot be undone.",
    confirmCheck: 'I understand this is irreversible',
    confirm: 'Anonymize',
    exported: 'Data exported.',
    anonymized: 'Contact anonymized.',
    cancel: 'Cancel',
    close: 'Close',
  },
  es: {
    export: 'Exportar datos (LGPD)',
    anonymize: 'Anonimizar contacto',
    confirmTitle: '¿Anonimizar este contacto?',
    confirmMessage: 'Se borrarán el nombre, el número, el correo, la información adicional, la foto y el texto y los archivos de las conversaciones de este contacto. Los recuentos y valoraciones se conservan para las estadísticas. No se puede deshacer.',
    confirmCheck: 'Entiendo que esta acción es irreversible',
    confirm: 'Anonimizar',
    exported: 'Datos exportados.',
    anonymized: 'Contacto anonimizado.',
    cancel: 'Cancelar',
    close: 'Cerrar',
  },
  tr: {
    export: 'Verileri dışa aktar (KVKK)',
    anonymize: 'Kişiyi anonimleştir',
    confirmTitle: 'Bu kişi anonimleştirilsin mi?',
    confirmMessage: 'Bu kişinin adı, numarası, e-postası, ek bilgileri, fotoğrafı ve konuşmalarının metin ve medyası silinecek. Sayılar ve puanlar istatistikler için kalır. Bu işlem geri alınamaz.',
    confirmCheck: 'Bu işlemin geri alınamayacağını anlıyorum',
    confirm: 'Anonimleştir',
    exported: 'Veriler dışa aktarıldı.',
    anonymized: 'Kişi anonimleştirildi.',
    cancel: 'İptal',
    close: 'Kapat',
  },
};

/** The actions' texts in `language` (pt-BR, the default, for any other). */
export function contactPrivacyTexts(language: string | undefined): ContactPrivacyTexts {
  return PRIVACY_TEXTS[(language ?? 'pt-BR') as keyof typeof PRIVACY_TEXTS] ?? PRIVACY_TEXTS['pt-BR'];
}
