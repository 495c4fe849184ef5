import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSocketEvent } from '@atendo/web-api';
import { Card, Spinner } from '@atendo/web-ui';
import type { ImportEvent } from './api';

/**
 * The progress card of a contact or history import (spec 2-tickets.md §2 "Connections page": processed of
 * total and the date, or a preparing spinner while the current count is -1), fed by `importMessages-{id}`;
 * `refresh` (import done) hides it.
 */
export function ImportCard({ companyId }: { companyId: number }) {
  const { t } = useTranslation('admin');
  const [status, setStatus] = useState<{ this: number; all: number; date?: string } | null>(null);
  useSocketEvent<ImportEvent>(`importMessages-${companyId}`, (event) => {
    if (!event || typeof event !== 'object') return;
    if (event.action === 'refresh') setStatus(null);
    else if (event.action === 'update' && event.status && typeof event.status.all === 'number') setStatus(event.status);
  });
  if (!status) return null;
  return (
    <Card role="status" data-testid="import-card">
      {status.this === -1 ? (
        <>
          <Spinner size={20} label={t('connections.import.preparing')} /> {t('connections.import.preparing')}
        </>
      ) : (
        <span>
          {t('connections.import.progress', { done: status.this, all: status.all })}
          {status.date ? ` · ${status.date}` : ''}
        </span>
      )}
    </Card>
  );
}
