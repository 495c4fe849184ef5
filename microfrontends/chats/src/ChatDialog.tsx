import { useMemo, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import styled from 'styled-components';
import { toastError } from '@atendo/web-api';
import { Button, Modal, Spinner, TextField } from '@atendo/web-ui';
import { chatKeys, createChat, deleteChat, fetchUsers, updateChat, type Chat } from './api';
import { useErrorToast } from './hooks';
import { forgetChat, storeChat } from './useLiveChats';

const Form = styled.form`
  display: grid;
  gap: 12px;
`;

const Fieldset = styled.fieldset`
  margin: 0;
  padding: 0;
  border: none;
  min-width: 0;
  legend {
    display: flex;
    width: 100%;
    justify-content: space-between;
    margin-bottom: 6px;
    font-size: ${(p) => p.theme.font.size.sm};
    font-weight: ${(p) => p.theme.font.weight.medium};
    color: ${(p) => p.theme.colors.textMuted};
  }
`;

const Users = styled.ul`
  max-height: 240px;
  overflow-y: auto;
  margin: 8px 0 0;
  padding: 0;
  list-style: none;
  border: 1px solid ${(p) => p.theme.colors.border};
  border-radius: ${(p) => p.theme.radius.md};
  li + li { border-top: 1px solid ${(p) => p.theme.colors.border}; }
  label { display: flex; align-items: center; gap: 10px; padding: 8px 12px; cursor: pointer; }
  label:hover { background: ${(p) => p.theme.colors.surfaceAlt}; }
`;

const Note = styled.p`
  margin: 8px 0 0;
  color: ${(p) => p.theme.colors.textMuted};
  font-size: ${(p) => p.theme.font.size.sm};
`;

const Buttons = styled.div`
  display: flex;
  justify-content: flex-end;
  gap: 8px;
  margin-top: 4px;
`;

/**
 * The new/edit chat dialog (spec "Internal chat"; §5: save stays disabled until the title is not blank and
 * at least one participant is chosen). Participants are the company's other users (GET /users/list); the
 * owner is always a participant (the server adds them). Creating answers the new chat (opened by the
 * caller); editing replaces the title and the participants (owner only).
 */
export function ChatDialog({ chat, userId, onClose, onSaved }: { chat?: Chat; userId: number; onClose: () => void; onSaved: (chat: Chat, created: boolean) => void }) {
  const { t } = useTranslation('chats');
  const client = useQueryClient();
  const users = useQuery({ queryKey: chatKeys.users, queryFn: ({ signal }) => fetchUsers(signal), staleTime: 60_000 });
  useErrorToast(users.error);
  const [title, setTitle] = useState(chat?.title ?? '');
  const [selected, setSelected] = useState<Set<number>>(() => new Set((chat?.users ?? []).map((u) => u.userId).filter((id) => id !== userId)));
  const [filter, setFilter] = useState('');
  const [saving, setSaving] = useState(false);

  const others = useMemo(() => (users.data ?? []).filter((u) => u.id !== userId), [users.data, userId]);
  const term = filter.trim().toLowerCase();
  const shown = term ? others.filter((u) => u.name.toLowerCase().includes(term)) : others;
  const canSave = Boolean(title.trim()) && selected.size > 0 && !saving;

  const toggle = (id: number) =>
    setSelected((prev) => {
      const next = new Set(prev);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  const save = async () => {
    if (!canSave) return;
    const names = new Map([...others, ...(chat?.users ?? []).flatMap((u) => (u.user ? [u.user] : []))].map((u) => [u.id, u.name]));
    const body = { title: title.trim(), users: [...selected].map((id) => ({ id, name: names.get(id) ?? '' })) };
    setSaving(true);
    try {
      const saved = chat ? await updateChat(chat.id, body) : await createChat(body);
      storeChat(client, saved, userId, !chat);
      onSaved(saved, !chat);
    } catch (err) {
      toastError(err);
      setSaving(false);
    }
  };

  return (
    <Modal open title={chat ? t('dialog.editTitle') : t('dialog.newTitle')} onClose={onClose} closeLabel={t('dialog.close')}>
      <Form
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
        data-testid="chat-dialog"
      >
        <TextField label={t('dialog.title')} value={title} onChange={(e) => setTitle(e.target.value)} maxLength={200} data-testid="chat-title" />
        <Fieldset>
          <legend>
            <span>{t('dialog.participants')}</span>
            <span data-testid="selected-count">{t('dialog.selected', { count: selected.size })}</span>
          </legend>
          <TextField label={t('dialog.filter')} type="search" value={filter} onChange={(e) => setFilter(e.target.value)} data-testid="user-filter" />
          {users.isPending ? (
            <Note>
              <Spinner size={20} label={t('loading')} />
            </Note>
          ) : shown.length ? (
            <Users data-testid="user-options">
              {shown.map((u) => (
                <li key={u.id}>
                  <label>
                    <input type="checkbox" checked={selected.has(u.id)} onChange={() => toggle(u.id)} data-testid={`user-option-${u.id}`} />
                    {u.name}
                  </label>
                </li>
              ))}
            </Users>
          ) : (
            <Note>{t('dialog.noUsers')}</Note>
          )}
        </Fieldset>
        <Buttons>
          <Button variant="text" onClick={onClose}>
            {t('dialog.cancel')}
          </Button>
          <Button type="submit" disabled={!canSave} data-testid="save-chat">
            {t('dialog.save')}
          </Button>
        </Buttons>
      </Form>
    </Modal>
  );
}

/** Confirmation before DELETE /chats/:id (owner only); the chat leaves every list on success. */
export function ConfirmDelete({ chat, onClose, onDeleted }: { chat: Chat; onClose: () => void; onDeleted: (chat: Chat) => void }) {
  const { t } = useTranslation('chats');
  const client = useQueryClient();
  const [busy, setBusy] = useState(false);
  const confirm = async () => {
    setBusy(true);
    try {
      await deleteChat(chat.id);
      forgetChat(client, chat.id);
      onDeleted(chat);
    } catch (err) {
      toastError(err);
      setBusy(false);
    }
  };
  return (
    <Modal open title={t('confirm.title')} onClose={onClose} closeLabel={t('dialog.close')}>
      <p data-testid="confirm-text">{t('confirm.text', { title: chat.title })}</p>
      <Buttons>
        <Button variant="text" onClick={onClose}>
          {t('confirm.cancel')}
        </Button>
        <Button variant="danger" disabled={busy} onClick={() => void confirm()} data-testid="confirm-delete">
          {t('confirm.delete')}
        </Button>
      </Buttons>
    </Modal>
  );
}
