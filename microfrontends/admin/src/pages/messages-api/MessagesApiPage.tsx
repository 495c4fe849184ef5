import { useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { toast } from 'react-toastify';
import styled from 'styled-components';
import { errorText, toastError, useSessionUser, useSocketEvent } from '@atendo/web-api';
import { Button, Card, SelectField, TextField, Title } from '@atendo/web-ui';
import { CheckboxField, ListFrame, navigateTo, TextAreaField } from '@atendo/web-kit';
import { fetchQueues, fetchUserRefs, sharedKeys } from '../../lib/api';
import { SectionTitle } from '../../lib/fields';
import { curlExamples, endpointUrl, formErrors, MEDIA_FIELD, sendMedia, sendText, type MediaForm, type SendAnswer, type TextForm } from './api';

const Grid = styled.div`
  display: grid;
  grid-template-columns: repeat(auto-fit, minmax(320px, 1fr));
  gap: ${(p) => p.theme.space(2)};
  align-items: start;
`;

const Panel = styled(Card)`
  padding: ${(p) => p.theme.space(2)};
  display: flex;
  flex-direction: column;
  gap: ${(p) => p.theme.space(1)};
  min-width: 0;
`;

const Code = styled.pre`
  margin: 0;
  padding: ${(p) => p.theme.space(1.5)};
  border-radius: ${(p) => p.theme.radius.md};
  background: ${(p) => p.theme.colors.background};
  border: 1px solid ${(p) => p.theme.colors.border};
  font-size: ${(p) => p.theme.font.size.sm};
  white-space: pre-wrap;
  word-break: break-all;
`;

const Facts = styled.dl`
  display: grid;
  grid-template-columns: max-content 1fr;
  gap: ${(p) => p.theme.space(0.5)} ${(p) => p.theme.space(2)};
  margin: 0;
  dt { color: ${(p) => p.theme.colors.textMuted}; }
  dd { margin: 0; font-family: monospace; word-break: break-all; }
`;

const Results = styled.ul`
  list-style: none;
  margin: 0;
  padding: 0;
  li { padding: ${(p) => p.theme.space(0.75)} 0; border-bottom: 1px solid ${(p) => p.theme.colors.border}; }
`;

const Muted = styled.p`
  margin: 0;
  color: ${(p) => p.theme.colors.textMuted};
`;

/** A send made from this page, with its delivery state as the socket reports it. */
interface SentRow extends SendAnswer {
  kind: 'text' | 'media';
  ack: number;
}

/** The `company-{id}-appMessage` payload this page reads (ack updates of the messages it sent). */
interface AppMessageEvent {
  action?: string;
  message?: { id?: number; ack?: number };
}

/**
 * /messages-api (spec 3-campaigns-and-tools.md "External messages API page"; plan useExternalApi, which the
 * shell's gate checks before the page loads): documents `POST {api}/api/messages/send` with its bearer token
 * (a connection's token) for text and media, and tests both with the spec's fields (token, number, body,
 * userId, plus queueId and sendSignature on the text form, the file on the media form). A send shows the
 * spec's success toast and joins the list below, whose delivery state follows `company-{id}-appMessage`
 * live; API errors show as the translated catalogue toast and under the form.
 */
export function MessagesApiPage() {
  const { t } = useTranslation('admin');
  const me = useSessionUser();
  const url = endpointUrl();
  const examples = curlExamples(url);
  const users = useQuery({ queryKey: ['admin', 'users', 'refs'], queryFn: ({ signal }) => fetchUserRefs(signal) });
  const queues = useQuery({ queryKey: sharedKeys.queues, queryFn: ({ signal }) => fetchQueues(signal) });
  const [sent, setSent] = useState<SentRow[]>([]);

  useSocketEvent<AppMessageEvent>(me ? `company-${me.companyId}-appMessage` : null, (event) => {
    const id = event?.message?.id;
    const ack = event?.message?.ack;
    if (typeof id !== 'number' || typeof ack !== 'number') return;
    setSent((rows) => rows.map((r) => (r.messageId === id && ack > r.ack ? { ...r, ack } : r)));
  });

  const onSent = (answer: SendAnswer, kind: 'text' | 'media') => {
    toast.success(t('messagesApi.sent'));
    // The ack updates arrive by the user's ticket audiences. The page's socket is shared with the inbox: it
    // joins no room of the product family (a socket that joins one gets ticket events only by its rooms).
    setSent((rows) => [{ ...answer, kind, ack: 0 }, ...rows.filter((r) => r.messageId !== answer.messageId)].slice(0, 20));
  };

  const lookups = { users: users.data ?? [], queues: queues.data ?? [], loading: users.isPending || queues.isPending, failed: users.isError || queues.isError, retry: () => void Promise.all([users.refetch(), queues.refetch()]) };

  return (
    <ListFrame data-testid="messages-api-page">
      <Title>{t('messagesApi.title')}</Title>
      <Panel>
        <SectionTitle>{t('messagesApi.docsTitle')}</SectionTitle>
        <Muted>{t('messagesApi.intro')}</Muted>
        <Facts>
          <dt>{t('messagesApi.endpoint')}</dt>
          <dd data-testid="messages-api-endpoint">{url}</dd>
          <dt>{t('messagesApi.method')}</dt>
          <dd>POST</dd>
          <dt>{t('messagesApi.headers')}</dt>
          <dd>Authorization: Bearer &lt;token&gt;</dd>
        </Facts>
        <Muted>{t('messagesApi.tokenHelp')}</Muted>
        <Grid>
          <div>
            <SectionTitle>{t('messagesApi.textTitle')}</SectionTitle>
            <Muted>{t('messagesApi.textHelp')}</Muted>
            <Code data-testid="messages-api-curl-text">{examples.text}</Code>
          </div>
          <div>
            <SectionTitle>{t('messagesApi.mediaTitle')}</SectionTitle>
            <Muted>{t('messagesApi.mediaHelp', { field: MEDIA_FIELD })}</Muted>
            <Code data-testid="messages-api-curl-media">{examples.media}</Code>
          </div>
        </Grid>
        <Muted>{t('messagesApi.answerHelp')}</Muted>
        <Code>{'{ "message": "Mensagem enviada com sucesso", "messageId": 123, "ticketId": 45, "number": "5511999999999" }'}</Code>
      </Panel>
      <Grid>
        <TextTester lookups={lookups} onSent={(a) => onSent(a, 'text')} />
        <MediaTester lookups={lookups} onSent={(a) => onSent(a, 'media')} />
      </Grid>
      <Panel data-testid="messages-api-results">
        <SectionTitle>{t('messagesApi.resultsTitle')}</SectionTitle>
        {sent.length === 0 ? (
          <Muted data-testid="messages-api-results-empty">{t('messagesApi.resultsEmpty')}</Muted>
        ) : (
          <Results>
            {sent.map((r) => (
              <li key={r.messageId} data-testid={`messages-api-result-${r.messageId}`}>
                {t(r.kind === 'text' ? 'messagesApi.resultText' : 'messagesApi.resultMedia', { messageId: r.messageId, ticketId: r.ticketId, number: r.number })}{' '}
                <strong data-testid={`messages-api-ack-${r.messageId}`}>{t(`messagesApi.ack.${Math.min(Math.max(r.ack, 0), 4)}`)}</strong>{' '}
                <Button variant="text" onClick={() => navigateTo(`/tickets/${r.ticketId}`)}>{t('messagesApi.openTicket')}</Button>
              </li>
            ))}
          </Results>
        )}
      </Panel>
    </ListFrame>
  );
}

interface Lookups {
  users: { id: number; name: string }[];
  queues: { id: number; name: string }[];
  loading: boolean;
  failed: boolean;
  retry: () => void;
}

/** The user (and queue) selects, with their loading and failed states. */
function LookupSelect({ label, value, onChange, options, lookups, testId, error }: { label: string; value: string; onChange: (v: string) => void; options: { id: number; name: string }[]; lookups: Lookups; testId: string; error?: string }) {
  const { t } = useTranslation('admin');
  return (
    <>
      <SelectField label={label} value={value} onChange={(e) => onChange(e.target.value)} data-testid={testId} error={error} disabled={lookups.loading}>
        <option value="">{lookups.loading ? t('common.loading') : t('messagesApi.none')}</option>
        {options.map((o) => (
          <option key={o.id} value={String(o.id)}>{`${o.name} (${o.id})`}</option>
        ))}
      </SelectField>
      {lookups.failed ? (
        <Muted role="status">
          {t('messagesApi.lookupFailed')} <Button variant="text" onClick={lookups.retry}>{t('common.retry')}</Button>
        </Muted>
      ) : null}
    </>
  );
}

/** Shared state of a tester: errors shown after the first submit, sending, the last API error. */
function useTester() {
  const [shown, setShown] = useState(false);
  const [sending, setSending] = useState(false);
  const [apiError, setApiError] = useState<string | null>(null);
  const run = async (errors: unknown[], send: () => Promise<void>) => {
    setShown(true);
    if (errors.length || sending) return;
    setSending(true);
    setApiError(null);
    try {
      await send();
      setShown(false);
    } catch (err) {
      toastError(err);
      setApiError(errorText(err));
    } finally {
      setSending(false);
    }
  };
  return { shown, sending, apiError, run };
}

/** The text form: token, number, body, userId, queueId, sendSignature, bulk (issue 34). */
function TextTester({ lookups, onSent }: { lookups: Lookups; onSent: (a: SendAnswer) => void }) {
  const { t } = useTranslation('admin');
  const [form, setForm] = useState<TextForm>({ token: '', number: '', body: '', userId: '', queueId: '', sendSignature: false });
  const tester = useTester();
  const errors = formErrors(form, 'text');
  const errorOf = (field: string) => {
    const e = tester.shown ? errors.find((x) => x.field === field) : undefined;
    return e ? t(e.key) : undefined;
  };
  const set = <K extends keyof TextForm>(key: K, value: TextForm[K]) => setForm((f) => ({ ...f, [key]: value }));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void tester.run(errors, async () => {
      onSent(await sendText(form));
      setForm((f) => ({ ...f, body: '' }));
    });
  };
  return (
    <Panel as="form" onSubmit={submit} noValidate data-testid="messages-api-text-form">
      <SectionTitle>{t('messagesApi.testText')}</SectionTitle>
      <TextField label={t('messagesApi.token')} value={form.token} onChange={(e) => set('token', e.target.value)} error={errorOf('token')} autoComplete="off" data-testid="text-token" />
      <TextField label={t('messagesApi.number')} value={form.number} onChange={(e) => set('number', e.target.value)} inputMode="tel" placeholder="5511999999999" error={errorOf('number')} data-testid="text-number" />
      <TextAreaField label={t('messagesApi.body')} value={form.body} onChange={(e) => set('body', e.target.value)} rows={3} error={errorOf('body')} data-testid="text-body" />
      <LookupSelect label={t('messagesApi.userId')} value={form.userId} onChange={(v) => set('userId', v)} options={lookups.users} lookups={lookups} testId="text-user" error={errorOf('userId')} />
      <LookupSelect label={t('messagesApi.queueId')} value={form.queueId} onChange={(v) => set('queueId', v)} options={lookups.queues} lookups={{ ...lookups, failed: false }} testId="text-queue" error={errorOf('queueId')} />
      <CheckboxField label={t('messagesApi.sendSignature')} checked={form.sendSignature} onChange={(v) => set('sendSignature', v)} testId="text-signature" />
      <CheckboxField label={t('messagesApi.bulk')} checked={Boolean(form.bulk)} onChange={(v) => set('bulk', v)} testId="text-bulk" />
      {tester.apiError ? <Muted role="alert" data-testid="text-error">{tester.apiError}</Muted> : null}
      <Button type="submit" disabled={tester.sending} data-testid="text-send">{tester.sending ? t('messagesApi.sending') : t('messagesApi.send')}</Button>
    </Panel>
  );
}

/** The media form: token, number, body (caption), userId and the file. */
function MediaTester({ lookups, onSent }: { lookups: Lookups; onSent: (a: SendAnswer) => void }) {
  const { t } = useTranslation('admin');
  const [form, setForm] = useState<MediaForm>({ token: '', number: '', body: '', userId: '', file: null });
  const [fileKey, setFileKey] = useState(0);
  const tester = useTester();
  const errors = formErrors(form, 'media');
  const errorOf = (field: string) => {
    const e = tester.shown ? errors.find((x) => x.field === field) : undefined;
    return e ? t(e.key) : undefined;
  };
  const set = <K extends keyof MediaForm>(key: K, value: MediaForm[K]) => setForm((f) => ({ ...f, [key]: value }));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void tester.run(errors, async () => {
      onSent(await sendMedia(form));
      setForm((f) => ({ ...f, body: '', file: null }));
      setFileKey((k) => k + 1);
    });
  };
  const fileError = errorOf('file');
  return (
    <Panel as="form" onSubmit={submit} noValidate data-testid="messages-api-media-form">
      <SectionTitle>{t('messagesApi.testMedia')}</SectionTitle>
      <TextField label={t('messagesApi.token')} value={form.token} onChange={(e) => set('token', e.target.value)} error={errorOf('token')} autoComplete="off" data-testid="media-token" />
      <TextField label={t('messagesApi.number')} value={form.number} onChange={(e) => set('number', e.target.value)} inputMode="tel" placeholder="5511999999999" error={errorOf('number')} data-testid="media-number" />
      <TextAreaField label={t('messagesApi.caption')} value={form.body} onChange={(e) => set('body', e.target.value)} rows={2} data-testid="media-body" />
      <LookupSelect label={t('messagesApi.userId')} value={form.userId} onChange={(v) => set('userId', v)} options={lookups.users} lookups={lookups} testId="media-user" error={errorOf('userId')} />
      <label>
        {t('messagesApi.file')}{' '}
        <input key={fileKey} type="file" aria-label={t('messagesApi.file')} onChange={(e) => set('file', e.target.files?.[0] ?? null)} data-testid="media-file" />
      </label>
      {fileError ? <Muted role="alert">{fileError}</Muted> : null}
      {tester.apiError ? <Muted role="alert" data-testid="media-error">{tester.apiError}</Muted> : null}
      <Button type="submit" disabled={tester.sending} data-testid="media-send">{tester.sending ? t('messagesApi.sending') : t('messagesApi.send')}</Button>
    </Panel>
  );
}
