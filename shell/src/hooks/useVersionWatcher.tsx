import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { toast } from 'react-toastify';
import styled from 'styled-components';
import { api } from '@atendo/web-api';
import { Button } from '@atendo/web-ui';

/** How often the running API version is checked. */
export const VERSION_POLL_MS = 60_000;

const Row = styled.div`
  display: flex;
  align-items: center;
  gap: 12px;
  justify-content: space-between;
`;

function UpdateToast() {
  const { t } = useTranslation();
  return (
    <Row>
      <span>{t('update.available')}</span>
      <Button variant="secondary" onClick={() => window.location.reload()}>
        {t('update.reload')}
      </Button>
    </Row>
  );
}

/**
 * Update-available toast (spec 1-platform.md §4): polls `GET /version` every minute; when the version
 * differs from the first one seen, shows a toast with a reload button (once).
 */
export function useVersionWatcher(intervalMs: number = VERSION_POLL_MS): void {
  useEffect(() => {
    let first: string | undefined;
    let stopped = false;
    const check = async () => {
      try {
        const { version } = await api.get<{ version: string }>('/version', { auth: false });
        if (stopped || typeof version !== 'string') return;
        if (first === undefined) first = version;
        else if (version !== first) toast.info(<UpdateToast />, { toastId: 'update-available', autoClose: false, closeOnClick: false });
      } catch {
        /* API unreachable: try again next time */
      }
    };
    void check();
    const id = setInterval(() => void check(), intervalMs);
    return () => {
      stopped = true;
      clearInterval(id);
    };
  }, [intervalMs]);
}
