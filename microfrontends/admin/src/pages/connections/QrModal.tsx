import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { QRCodeSVG } from 'qrcode.react';
import styled from 'styled-components';
import { toastError } from '@atendo/web-api';
import { Button, Modal, Spinner, TextField } from '@atendo/web-ui';
import { formatPairingCode, requestPairingCode, type Connection } from './api';

const Code = styled.output`
  font-family: monospace;
  font-size: 2rem;
  letter-spacing: 0.2em;
  font-weight: 700;
  padding: ${(p) => p.theme.space(1)} ${(p) => p.theme.space(2)};
  border: 2px dashed ${(p) => p.theme.colors.primary};
  border-radius: ${(p) => p.theme.radius.md};
`;

const PairForm = styled.form`
  display: flex;
  gap: ${(p) => p.theme.space(1)};
  align-items: flex-end;
  width: 100%;
  > div { flex: 1; }
`;

const Box = styled.div`
  display: flex;
  flex-direction: column;
  align-items: center;
  gap: ${(p) => p.theme.space(2)};
  padding: ${(p) => p.theme.space(1)};
  text-align: center;
  svg { background: #fff; padding: 12px; border-radius: ${(p) => p.theme.radius.md}; }
  ol { text-align: left; margin: 0; padding-left: 20px; }
`;

/**
 * The QR code of a WhatsApp (Baileys) connection (spec 2-tickets.md §2 "QR modal"): renders the `qrcode`
 * string the session pushes on `company-{id}-whatsappSession` (kept in the connections list by the page) as
 * a QR image (qrcode.react); a new string replaces it; the dialog closes when the pushed qrcode becomes
 * empty (scanned, or the session stopped). Pairing by phone code where Baileys offers it: the admin types
 * the account's number, the session restarts and pushes status `PAIRING` with the 8-character code in
 * `qrcode`, shown as `ABCD-1234` with the steps to type it on the phone.
 */
export function QrModal({ connection, onClose }: { connection: Pick<Connection, 'id' | 'name' | 'qrcode'> & { status?: string }; onClose: () => void }) {
  const { t } = useTranslation('admin');
  const shown = useRef(false);
  const [phone, setPhone] = useState('');
  const [phoneError, setPhoneError] = useState<string | null>(null);
  const [asking, setAsking] = useState(false);
  const qr = connection.qrcode ?? '';
  const pairing = connection.status === 'PAIRING';
  useEffect(() => {
    if (qr) shown.current = true;
    else if (shown.current) onClose();
  }, [qr, onClose]);

  const askCode = async (e: FormEvent) => {
    e.preventDefault();
    const digits = phone.replace(/\D/g, '');
    if (digits.length < 10 || digits.length > 15) {
      setPhoneError(t('connections.qr.phoneInvalid'));
      return;
    }
    setPhoneError(null);
    setAsking(true);
    // The session restarts (its qrcode empties for a moment): wait for the code instead of closing.
    shown.current = false;
    try {
      await requestPairingCode(connection.id, phone);
    } catch (err) {
      toastError(err);
    } finally {
      setAsking(false);
    }
  };

  return (
    <Modal open title={t('connections.qr.title', { name: connection.name })} onClose={onClose} closeLabel={t('common.close')}>
      <Box>
        {pairing && qr ? (
          <>
            <ol>
              <li>{t('connections.qr.step1')}</li>
              <li>{t('connections.qr.step2')}</li>
              <li>{t('connections.qr.pairStep3')}</li>
            </ol>
            <Code aria-label={t('connections.qr.pairCode')} data-testid="pairing-code">{formatPairingCode(qr)}</Code>
          </>
        ) : (
          <>
            <ol>
              <li>{t('connections.qr.step1')}</li>
              <li>{t('connections.qr.step2')}</li>
              <li>{t('connections.qr.step3')}</li>
            </ol>
            {qr ? (
              <QRCodeSVG value={qr} size={256} level="L" role="img" aria-label={t('connections.qr.image')} data-testid="qr-code" data-value={qr} />
            ) : (
              <>
                <Spinner label={t('connections.qr.waiting')} />
                <span>{t('connections.qr.waiting')}</span>
              </>
            )}
          </>
        )}
        <PairForm onSubmit={(e) => void askCode(e)} noValidate data-testid="pairing-form">
          <TextField label={t('connections.qr.phone')} value={phone} onChange={(e) => setPhone(e.target.value)} inputMode="tel" placeholder="5511999999999" error={phoneError ?? undefined} data-testid="pairing-phone" />
          <Button type="submit" variant="secondary" disabled={asking} data-testid="pairing-submit">
            {t('connections.qr.pairButton')}
          </Button>
        </PairForm>
      </Box>
    </Modal>
  );
}
