import i18next from 'i18next';
import { toast } from 'react-toastify';

/** How long an error toast stays (spec 1-platform.md §9: 2 seconds). */
export const ERROR_TOAST_MS = 2000;

interface ErrorLike {
  response?: { data?: { error?: unknown; code?: unknown; message?: unknown } };
  data?: { error?: unknown; code?: unknown; message?: unknown };
}

/**
 * The text to show for an error (spec 1-platform.md §8, wire-shapes §1.2): the translation of
 * `backendErrors.<code>` when the answer carries a known code (its `code`, else its `error`); otherwise the raw text (the answer's
 * `message`, then its `error`, or the error itself when it is a string); otherwise "An error occurred!"
 * (translated as `errors.generic`).
 */
export function errorText(err: unknown): string {
  const e = (err && typeof err === 'object' ? err : {}) as ErrorLike;
  const data = e.response?.data ?? e.data;
  // `code` wins over `error` (POST /tickets' 409 carries a JSON ticket in `error` and its code in `code`).
  const code = typeof data?.code === 'string' && data.code ? data.code : typeof data?.error === 'string' && data.error ? data.error : undefined;
  if (code && i18next.exists(`backendErrors.${code}`)) return i18next.t(`backendErrors.${code}`);
  if (typeof data?.message === 'string' && data.message) return data.message;
  if (code) return code;
  if (typeof err === 'string' && err) return err;
  return i18next.exists('errors.generic') ? i18next.t('errors.generic') : 'An error occurred!';
}

/** Shows `errorText(err)` as an error toast (2 s; one toast per distinct text). */
export function toastError(err: unknown): void {
  const text = errorText(err);
  toast.error(text, { toastId: text, autoClose: ERROR_TOAST_MS });
}
