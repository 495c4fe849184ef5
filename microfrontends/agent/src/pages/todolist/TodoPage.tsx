import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import styled from 'styled-components';
import { Button, Card, EmptyState, IconButton } from '@atendo/web-ui';
import { ListFrame, ListHeader } from '@atendo/web-kit';
import { AgentIcon } from '../../lib/parts';
import { readTasks, removeTask, saveTask, TASKS_KEY, writeTasks, type Task } from './tasks';

const Form = styled.form`
  display: flex;
  gap: ${(p) => p.theme.space(1)};
  input {
    flex: 1;
    min-width: 0;
    height: 40px;
    padding: 0 12px;
    border: 1px solid ${(p) => p.theme.colors.border};
    border-radius: ${(p) => p.theme.radius.md};
    background: ${(p) => p.theme.colors.surface};
    color: ${(p) => p.theme.colors.text};
    font-size: ${(p) => p.theme.font.size.md};
  }
  input:focus { outline: none; border-color: ${(p) => p.theme.colors.primary}; }
`;

const Items = styled.ul`
  list-style: none;
  margin: 0;
  padding: 0;
  li {
    display: flex;
    align-items: center;
    gap: ${(p) => p.theme.space(1)};
    padding: 10px 16px;
    border-bottom: 1px solid ${(p) => p.theme.colors.border};
  }
  li[aria-current='true'] { background: ${(p) => p.theme.colors.primarySoft}; }
  .text { flex: 1; min-width: 0; word-break: break-word; }
  small { color: ${(p) => p.theme.colors.textMuted}; white-space: nowrap; }
`;

const List = styled(Card)`
  flex: 1;
  min-height: 0;
  overflow: auto;
  padding: 0;
`;

/** `DD/MM/YYYY HH:mm` of an ISO time in the browser's zone. */
function when(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getDate())}/${p(d.getMonth() + 1)}/${d.getFullYear()} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

/**
 * The to-do list (spec 3-campaigns-and-tools.md §2 "To-do list", §4): a text box with an add-or-save
 * button, the tasks with their text and last-updated time, edit and delete per task. Kept in this browser
 * only (local storage `tasks`); other tabs' changes show up through the storage event.
 */
export function TodoPage() {
  const { t } = useTranslation('agent');
  const [tasks, setTasks] = useState<Task[]>(() => readTasks());
  const [text, setText] = useState('');
  const [editing, setEditing] = useState<number | null>(null);
  const input = useRef<HTMLInputElement>(null);

  useEffect(() => {
    const onStorage = (e: StorageEvent) => {
      if (e.key === TASKS_KEY || e.key === null) setTasks(readTasks());
    };
    window.addEventListener('storage', onStorage);
    return () => window.removeEventListener('storage', onStorage);
  }, []);

  const update = (next: Task[]) => {
    setTasks(next);
    writeTasks(next);
  };

  const submit = () => {
    if (!text.trim()) return;
    update(saveTask(tasks, text, editing));
    setText('');
    setEditing(null);
  };

  const edit = (index: number) => {
    setEditing(index);
    setText(tasks[index].text);
    input.current?.focus();
  };

  const remove = (index: number) => {
    update(removeTask(tasks, index));
    if (editing === index) {
      setEditing(null);
      setText('');
    } else if (editing !== null && editing > index) {
      setEditing(editing - 1);
    }
  };

  return (
    <ListFrame data-testid="todo-page">
      <ListHeader title={t('todo.title')} count={t('todo.count', { count: tasks.length })} countTestId="todo-count" />
      <Form
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <input ref={input} value={text} onChange={(e) => setText(e.target.value)} placeholder={t('todo.placeholder')} aria-label={t('todo.placeholder')} maxLength={1000} data-testid="todo-input" />
        <Button type="submit" data-testid="todo-submit">
          {editing === null ? t('todo.add') : t('todo.save')}
        </Button>
        {editing !== null ? (
          <Button
            variant="text"
            onClick={() => {
              setEditing(null);
              setText('');
            }}
          >
            {t('common.cancel')}
          </Button>
        ) : null}
      </Form>
      <List>
        {tasks.length === 0 ? (
          <EmptyState icon="check" text={t('todo.empty')} data-testid="todo-empty" />
        ) : (
          <Items data-testid="todo-items">
            {tasks.map((task, i) => (
              <li key={`${task.createdAt}-${i}`} aria-current={editing === i ? 'true' : undefined} data-testid={`todo-item-${i}`}>
                <span className="text">{task.text}</span>
                <small title={t('todo.updatedAt')}>{when(task.updatedAt)}</small>
                <IconButton label={t('todo.edit', { text: task.text })} tone="default" onClick={() => edit(i)}>
                  <AgentIcon name="edit" />
                </IconButton>
                <IconButton label={t('todo.delete', { text: task.text })} tone="default" onClick={() => remove(i)}>
                  <AgentIcon name="trash" />
                </IconButton>
              </li>
            ))}
          </Items>
        )}
      </List>
    </ListFrame>
  );
}
