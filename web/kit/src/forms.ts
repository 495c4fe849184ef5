import { useCallback, type ChangeEvent, type FocusEvent } from 'react';
import type { FormikProps } from 'formik';
import { useTranslation } from 'react-i18next';
import * as yup from 'yup';

/**
 * The forms' shared validator (yup, as the shell's forms) and the glue between formik and web-ui's fields.
 * Messages are i18n keys: `validation.*` of the shell's texts (Obrigatório / Required, Muito curto! / Too
 * Short!, Muito longo! / Too Long!, E-mail inválido / Invalid email), or an area's own as `ns:key`;
 * `useFieldProps` translates them when shown.
 */

/** Length rules of the spec (1-platform.md §9, 2-tickets.md §9). */
export const LIMITS = { name: { min: 2, max: 50 }, password: { min: 5, max: 50 } } as const;

/** The shared rules; each returns a fresh yup schema to extend. */
export const rules = {
  /** Required text, trimmed. */
  required: (message = 'validation.required') => yup.string().trim().required(message),
  /** A name: required, 2 to 50 characters. */
  name: () => yup.string().trim().min(LIMITS.name.min, 'validation.tooShort').max(LIMITS.name.max, 'validation.tooLong').required('validation.required'),
  /** An e-mail: required and valid. */
  email: () => yup.string().trim().email('validation.invalidEmail').max(255, 'validation.tooLong').required('validation.required'),
  /** A password of 5 to 50 characters; optional (empty keeps the current one) unless `required`. */
  password: (required: boolean) => {
    const s = yup.string().min(LIMITS.password.min, 'validation.tooShort').max(LIMITS.password.max, 'validation.tooLong');
    return required ? s.required('validation.required') : s;
  },
  /** `HH:mm`. */
  time: () => yup.string().matches(/^([01]\d|2[0-3]):[0-5]\d$/, { message: 'validation.invalidTime', excludeEmptyString: true }),
};

export { yup };

/** Props for a web-ui TextField / SelectField bound to a formik field. */
export interface BoundFieldProps {
  name: string;
  value: string;
  onChange: (e: ChangeEvent<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>) => void;
  onBlur: (e: FocusEvent<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>) => void;
  error?: string | false;
}

/**
 * `field(name)`: value, change and blur handlers and the translated error (once touched, or after a submit
 * attempt) for a formik field, ready to spread on a web-ui TextField or SelectField.
 */
export function useFieldProps<V extends object>(formik: FormikProps<V>) {
  const { t } = useTranslation();
  return useCallback(
    (name: keyof V & string): BoundFieldProps => {
      const error = (formik.errors as Record<string, unknown>)[name];
      const touched = (formik.touched as Record<string, unknown>)[name] || formik.submitCount > 0;
      const value = (formik.values as Record<string, unknown>)[name];
      return {
        name,
        value: value === null || value === undefined ? '' : String(value),
        onChange: formik.handleChange,
        onBlur: formik.handleBlur,
        error: touched && typeof error === 'string' ? t(error) : false,
      };
    },
    [formik, t],
  );
}
