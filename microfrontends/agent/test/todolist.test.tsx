/** @jest-environment jsdom */
import '../../../shell/test/jsdom-polyfills';
import { act, fireEvent, screen, within } from '@testing-library/react';
import { TodoPage } from '../src/pages/todolist/TodoPage';
import { readTasks, removeTask, saveTask, TASKS_KEY, writeTasks } from '../src/pages/todolist/tasks';
import { renderAgent } from './helpers';

const T0 = new Date('2026-11-20T10:00:00.000Z');
const T1 = new Date('2026-11-21T12:30:00.000Z');

describe('to-do tasks (local storage `tasks`)', () => {
  beforeEach(() => window.localStorage.clear());

  test('add, edit (keeps createdAt, sets updatedAt), blank text ignored, remove', () => {
    let tasks = saveTask([], '  Ligar para a Ana ', null, T0);
    expect(tasks).toEqual([{ text: 'Ligar para a Ana', createdAt: T0.toISOString(), updatedAt: T0.toISOString() }]);
    expect(saveTask(tasks, '   ', null, T1)).toBe(tasks);
    expect(saveTask(tasks, '', 0, T1)).toBe(tasks);
    tasks = saveTask(tasks, 'Ligar para a Ana às 15h', 0, T1);
    expect(tasks).toEqual([{ text: 'Ligar para a Ana às 15h', createdAt: T0.toISOString(), updatedAt: T1.toISOString() }]);
    tasks = saveTask(tasks, 'Enviar proposta', null, T1);
    expect(removeTask(tasks, 0).map((t) => t.text)).toEqual(['Enviar proposta']);
  });

  test('stored as JSON under the key `tasks`; unreadable or malformed values read as none', () => {
    writeTasks(saveTask([], 'A', null, T0));
    expect(JSON.parse(window.localStorage.getItem(TASKS_KEY)!)).toEqual([{ text: 'A', createdAt: T0.toISOString(), updatedAt: T0.toISOString() }]);
    expect(readTasks()).toHaveLength(1);
    window.localStorage.setItem(TASKS_KEY, '{not json');
    expect(readTasks()).toEqual([]);
    window.localStorage.setItem(TASKS_KEY, JSON.stringify([{ text: 'ok', createdAt: 'x', updatedAt: 'y' }, { text: 3 }, null]));
    expect(readTasks()).toEqual([{ text: 'ok', createdAt: 'x', updatedAt: 'y' }]);
  });
});

describe('the to-do page', () => {
  beforeEach(() => window.localStorage.clear());

  test('adds, edits, deletes and ignores blank texts; everything lands in local storage', () => {
    renderAgent(<TodoPage />, { route: '/todolist' });
    expect(screen.getByTestId('todo-empty').textContent).toContain('Nenhuma tarefa');
    const input = screen.getByTestId('todo-input');
    fireEvent.change(input, { target: { value: '   ' } });
    fireEvent.click(screen.getByTestId('todo-submit'));
    expect(screen.queryByTestId('todo-items')).toBeNull();

    fireEvent.change(input, { target: { value: 'Retornar cliente' } });
    fireEvent.click(screen.getByTestId('todo-submit'));
    fireEvent.change(input, { target: { value: 'Revisar agenda' } });
    fireEvent.submit(input.closest('form')!);
    expect(within(screen.getByTestId('todo-items')).getAllByRole('listitem').map((li) => li.querySelector('.text')?.textContent)).toEqual(['Retornar cliente', 'Revisar agenda']);
    expect(screen.getByTestId('todo-count').textContent).toContain('2 tarefas');
    const created = readTasks()[0].createdAt;

    // Edit: the text moves into the box, the button says Salvar; the creation time is kept.
    fireEvent.click(screen.getByRole('button', { name: 'Editar tarefa Retornar cliente' }));
    expect((input as HTMLInputElement).value).toBe('Retornar cliente');
    expect(screen.getByTestId('todo-submit').textContent).toContain('Salvar');
    fireEvent.change(input, { target: { value: 'Retornar cliente amanhã' } });
    fireEvent.click(screen.getByTestId('todo-submit'));
    expect(readTasks().map((t) => t.text)).toEqual(['Retornar cliente amanhã', 'Revisar agenda']);
    expect(readTasks()[0].createdAt).toBe(created);
    expect(screen.getByTestId('todo-submit').textContent).toContain('Adicionar');

    fireEvent.click(screen.getByRole('button', { name: 'Excluir tarefa Revisar agenda' }));
    expect(readTasks().map((t) => t.text)).toEqual(['Retornar cliente amanhã']);
    expect(screen.getByTestId('todo-count').textContent).toContain('1 tarefa');
  });

  test("another tab's change shows up (storage event); texts in English", () => {
    renderAgent(<TodoPage />, { route: '/todolist', language: 'en' });
    expect(screen.getByTestId('todo-empty').textContent).toContain('No tasks');
    writeTasks(saveTask([], 'From another tab', null, T0));
    act(() => {
      window.dispatchEvent(new StorageEvent('storage', { key: TASKS_KEY }));
    });
    expect(screen.getByTestId('todo-item-0').textContent).toContain('From another tab');
    expect(screen.getByTestId('todo-submit').textContent).toContain('Add');
  });
});
