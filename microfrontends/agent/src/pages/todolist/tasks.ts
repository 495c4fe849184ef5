/**
 * The local to-do list (spec 3-campaigns-and-tools.md §2 "To-do list", §3 "Local task", §4, §9): tasks are
 * kept only in this browser, under the local-storage key `tasks`, as a JSON array of `{text, createdAt,
 * updatedAt}` (ISO times). Pure helpers plus the storage read/write; the page keeps them in state.
 */

/** The local-storage key of the tasks (spec §9). */
export const TASKS_KEY = 'tasks';

export interface Task {
  text: string;
  /** ISO time the task was added (kept by edits). */
  createdAt: string;
  /** ISO time of the last change. */
  updatedAt: string;
}

const isTask = (v: unknown): v is Task =>
  Boolean(v) && typeof (v as Task).text === 'string' && typeof (v as Task).createdAt === 'string' && typeof (v as Task).updatedAt === 'string';

/** The stored tasks (an unreadable or foreign value reads as none; malformed entries are skipped). */
export function readTasks(storage: Pick<Storage, 'getItem'> = window.localStorage): Task[] {
  try {
    const parsed: unknown = JSON.parse(storage.getItem(TASKS_KEY) ?? '[]');
    return Array.isArray(parsed) ? parsed.filter(isTask) : [];
  } catch {
    return [];
  }
}

/** Stores `tasks` (a full storage is ignored: the list stays in memory). */
export function writeTasks(tasks: Task[], storage: Pick<Storage, 'setItem'> = window.localStorage): void {
  try {
    storage.setItem(TASKS_KEY, JSON.stringify(tasks));
  } catch {
    /* quota exceeded or storage disabled */
  }
}

/**
 * Saves `text` as a new task (index null) or as the new text of task `index`: a blank text changes nothing
 * (spec §4 "an empty or blank text is ignored"); an edit keeps `createdAt` and sets `updatedAt`.
 */
export function saveTask(tasks: Task[], text: string, index: number | null, now: Date = new Date()): Task[] {
  const clean = text.trim();
  if (!clean) return tasks;
  const at = now.toISOString();
  if (index === null || !tasks[index]) return [...tasks, { text: clean, createdAt: at, updatedAt: at }];
  return tasks.map((t, i) => (i === index ? { ...t, text: clean, updatedAt: at } : t));
}

/** The tasks without task `index`. */
export function removeTask(tasks: Task[], index: number): Task[] {
  return tasks.filter((_, i) => i !== index);
}
