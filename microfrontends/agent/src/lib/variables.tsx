import type { RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import { SelectField } from '@atendo/web-ui';

/**
 * The message variables an agent may put in a text (spec 3-campaigns-and-tools.md §3 "Message variables
 * offered for insertion"); the server fills them when the text is sent (`{{name}}` syntax, tickets plugin).
 */
export const MESSAGE_VARIABLES = ['firstName', 'name', 'userName', 'ms', 'protocol', 'date', 'hour', 'ticket_id', 'queue', 'connection'] as const;
export type MessageVariable = (typeof MESSAGE_VARIABLES)[number];

/** `{{variable}}` */
export const variableToken = (v: MessageVariable) => `{{${v}}}`;

/**
 * Inserts `token` into `value` at the text box's selection (replacing it), or at the end when the box has
 * no selection; returns the new text and the caret position after the token.
 */
export function insertAt(value: string, token: string, start?: number | null, end?: number | null): { text: string; caret: number } {
  const s = typeof start === 'number' && start >= 0 && start <= value.length ? start : value.length;
  const e = typeof end === 'number' && end >= s && end <= value.length ? end : s;
  return { text: value.slice(0, s) + token + value.slice(e), caret: s + token.length };
}

/**
 * A select "Insert a variable" listing MESSAGE_VARIABLES (translated name and `{{token}}`); choosing one
 * inserts its token at the caret of `target` (a textarea or input) through `onInsert(newText)`, puts the
 * caret after it and resets the select. A native select: it works inside dialogs and with the keyboard.
 */
export function VariablePicker({ target, value, onInsert, testId = 'variable-picker' }: { target: RefObject<HTMLTextAreaElement | HTMLInputElement | null>; value: string; onInsert: (text: string) => void; testId?: string }) {
  const { t } = useTranslation('agent');
  const choose = (v: string) => {
    if (!(MESSAGE_VARIABLES as readonly string[]).includes(v)) return;
    const el = target.current;
    const { text, caret } = insertAt(value, variableToken(v as MessageVariable), el?.selectionStart, el?.selectionEnd);
    onInsert(text);
    setTimeout(() => {
      el?.focus();
      el?.setSelectionRange?.(caret, caret);
    }, 0);
  };
  return (
    <SelectField label={t('variables.label')} value="" onChange={(e) => choose(e.target.value)} data-testid={testId}>
      <option value="">{t('variables.choose')}</option>
      {MESSAGE_VARIABLES.map((v) => (
        <option key={v} value={v}>
          {`${t(`variables.names.${v}`)} ${variableToken(v)}`}
        </option>
      ))}
    </SelectField>
  );
}
