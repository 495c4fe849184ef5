import type { ChatbotQueueType } from '@atendo/plugin-queues/contract';
import { MAX_DEPTH, type ChatbotBody, type ChatbotNode } from './api';

/**
 * The chatbot option tree as the editor holds it (spec 2-tickets.md §4 "Chatbot option tree": each option
 * is edited in place; saved only if it has a name; a message is mandatory to go to the next level). Pure
 * functions over an immutable tree of drafts, each with a local `key`.
 */
export interface OptionDraft {
  key: string;
  id?: number;
  name: string;
  greetingMessage: string;
  queueType: ChatbotQueueType;
  optQueueId: number | null;
  optUserId: number | null;
  optIntegrationId: number | null;
  optFileId: number | null;
  closeTicket: boolean;
  options: OptionDraft[];
}

/** Least characters of an option name (spec §5). */
export const MIN_OPTION_NAME = 4;

let seq = 0;
const newKey = () => `o${++seq}`;

/** Drafts from the API's tree. */
export function toDrafts(nodes: ChatbotNode[] | undefined): OptionDraft[] {
  return (nodes ?? []).map((n) => ({
    key: newKey(),
    id: n.id,
    name: n.name ?? '',
    greetingMessage: n.greetingMessage ?? '',
    queueType: n.queueType ?? 'text',
    optQueueId: n.optQueueId ?? null,
    optUserId: n.optUserId ?? null,
    optIntegrationId: n.optIntegrationId ?? null,
    optFileId: n.optFileId ?? null,
    closeTicket: Boolean(n.closeTicket),
    options: toDrafts(n.options),
  }));
}

/** An empty option. */
export function emptyOption(): OptionDraft {
  return { key: newKey(), name: '', greetingMessage: '', queueType: 'text', optQueueId: null, optUserId: null, optIntegrationId: null, optFileId: null, closeTicket: false, options: [] };
}

/** The tree with `key`'s option changed by `fn` (or removed when `fn` returns null). */
export function updateOption(tree: OptionDraft[], key: string, fn: (o: OptionDraft) => OptionDraft | null): OptionDraft[] {
  const out: OptionDraft[] = [];
  for (const o of tree) {
    if (o.key === key) {
      const next = fn(o);
      if (next) out.push(next);
    } else {
      out.push(o.options.length ? { ...o, options: updateOption(o.options, key, fn) } : o);
    }
  }
  return out;
}

/** Moves `key` one place up (-1) or down (+1) among its siblings. */
export function moveOption(tree: OptionDraft[], key: string, delta: -1 | 1): OptionDraft[] {
  const i = tree.findIndex((o) => o.key === key);
  if (i >= 0) {
    const j = i + delta;
    if (j < 0 || j >= tree.length) return tree;
    const out = [...tree];
    [out[i], out[j]] = [out[j], out[i]];
    return out;
  }
  return tree.map((o) => (o.options.length ? { ...o, options: moveOption(o.options, key, delta) } : o));
}

/** Whether a sub-option may be added under `o` at `level` (1 = root): it needs a message, and the tree stays within MAX_DEPTH. */
export const canAddChild = (o: OptionDraft, level: number) => o.greetingMessage.trim().length > 0 && level < MAX_DEPTH;

/** What is wrong with one option (i18n keys, namespace admin), empty when fine. */
export function optionErrors(o: OptionDraft): string[] {
  const errors: string[] = [];
  if (o.name.trim().length === 0) errors.push('queues.chatbot.errors.nameRequired');
  else if (o.name.trim().length < MIN_OPTION_NAME) errors.push('queues.chatbot.errors.nameShort');
  if (o.queueType === 'queue' && !o.optQueueId) errors.push('queues.chatbot.errors.queueRequired');
  if (o.queueType === 'attendent' && !o.optUserId) errors.push('queues.chatbot.errors.userRequired');
  if (o.queueType === 'integration' && !o.optIntegrationId) errors.push('queues.chatbot.errors.integrationRequired');
  if (o.queueType === 'file' && !o.optFileId) errors.push('queues.chatbot.errors.fileRequired');
  if (o.options.length > 0 && o.greetingMessage.trim().length === 0) errors.push('queues.chatbot.errors.messageRequired');
  return errors;
}

/** Whether every option of the tree is valid. */
export const treeValid = (tree: OptionDraft[]): boolean => tree.every((o) => optionErrors(o).length === 0 && treeValid(o.options));

/** The API body of a draft tree (targets that do not belong to the option's type are cleared). */
export function toBody(tree: OptionDraft[]): ChatbotBody[] {
  return tree.map((o) => ({
    ...(o.id ? { id: o.id } : {}),
    name: o.name.trim(),
    greetingMessage: o.greetingMessage.trim() || null,
    queueType: o.queueType,
    optQueueId: o.queueType === 'queue' ? o.optQueueId : null,
    optUserId: o.queueType === 'attendent' ? o.optUserId : null,
    optIntegrationId: o.queueType === 'integration' ? o.optIntegrationId : null,
    optFileId: o.queueType === 'file' ? o.optFileId : null,
    closeTicket: o.closeTicket,
    options: toBody(o.options),
  }));
}
