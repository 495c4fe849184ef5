import { forwardRef, useId, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes } from 'react';
import styled from 'styled-components';

const Wrapper = styled.div`
  display: flex;
  flex-direction: column;
  gap: 4px;
  width: 100%;
  min-width: 0;
`;

const Label = styled.label`
  font-size: ${(p) => p.theme.font.size.sm};
  font-weight: ${(p) => p.theme.font.weight.medium};
  color: ${(p) => p.theme.colors.textMuted};
`;

const Control = styled.div<{ $invalid: boolean }>`
  display: flex;
  min-width: 0;
  align-items: center;
  border: 1px solid ${(p) => (p.$invalid ? p.theme.colors.danger : p.theme.colors.border)};
  border-radius: ${(p) => p.theme.radius.md};
  background: ${(p) => p.theme.colors.surface};
  &:focus-within { border-color: ${(p) => (p.$invalid ? p.theme.colors.danger : p.theme.colors.primary)}; box-shadow: 0 0 0 3px ${(p) => p.theme.colors.primarySoft}; }
  input, select {
    flex: 1;
    min-width: 0;
    height: 40px;
    padding: 0 12px;
    border: none;
    outline: none;
    background: transparent;
    font-size: ${(p) => p.theme.font.size.md};
  }
  select { width: 100%; text-overflow: ellipsis; }
  select option { background: ${(p) => p.theme.colors.surface}; color: ${(p) => p.theme.colors.text}; }
`;

const Message = styled.div<{ $error: boolean }>`
  min-height: 1em;
  font-size: ${(p) => p.theme.font.size.xs};
  color: ${(p) => (p.$error ? p.theme.colors.danger : p.theme.colors.textMuted)};
`;

interface FieldChrome {
  label: string;
  /** Error text (already translated); marks the field invalid. */
  error?: string | false;
  helperText?: string;
  /** Rendered at the end of the control (e.g. a show/hide button). */
  endAdornment?: ReactNode;
}

export interface FieldFrameProps extends FieldChrome {
  /** The id of the control inside (the label points at it). */
  controlId: string;
  children: ReactNode;
}

/**
 * The label, bordered control box and message line of a field, around any input (e.g. a masked input):
 * give the input `id={controlId}` and `aria-describedby={`${controlId}-msg`}`.
 */
export function FieldFrame({ label, error, helperText, endAdornment, controlId, children }: FieldFrameProps) {
  return (
    <Wrapper>
      <Label htmlFor={controlId}>{label}</Label>
      <Control $invalid={Boolean(error)}>
        {children}
        {endAdornment}
      </Control>
      <Message id={`${controlId}-msg`} $error={Boolean(error)} role={error ? 'alert' : undefined}>
        {error || helperText || ''}
      </Message>
    </Wrapper>
  );
}

export type TextFieldProps = InputHTMLAttributes<HTMLInputElement> & FieldChrome;

/** A labelled text input with an optional error or helper line and end adornment. */
export const TextField = forwardRef<HTMLInputElement, TextFieldProps>(function TextField({ label, error, helperText, endAdornment, id, ...rest }, ref) {
  const auto = useId();
  const inputId = id ?? auto;
  const msgId = `${inputId}-msg`;
  return (
    <Wrapper>
      <Label htmlFor={inputId}>{label}</Label>
      <Control $invalid={Boolean(error)}>
        <input ref={ref} id={inputId} aria-invalid={error ? true : undefined} aria-describedby={error || helperText ? msgId : undefined} {...rest} />
        {endAdornment}
      </Control>
      <Message id={msgId} $error={Boolean(error)} role={error ? 'alert' : undefined}>
        {error || helperText || ''}
      </Message>
    </Wrapper>
  );
});

export type SelectFieldProps = SelectHTMLAttributes<HTMLSelectElement> & Omit<FieldChrome, 'endAdornment'>;

/** A labelled native select. */
export const SelectField = forwardRef<HTMLSelectElement, SelectFieldProps>(function SelectField({ label, error, helperText, id, children, ...rest }, ref) {
  const auto = useId();
  const selectId = id ?? auto;
  const msgId = `${selectId}-msg`;
  return (
    <Wrapper>
      <Label htmlFor={selectId}>{label}</Label>
      <Control $invalid={Boolean(error)}>
        <select ref={ref} id={selectId} aria-invalid={error ? true : undefined} aria-describedby={error || helperText ? msgId : undefined} {...rest}>
          {children}
        </select>
      </Control>
      <Message id={msgId} $error={Boolean(error)} role={error ? 'alert' : undefined}>
        {error || helperText || ''}
      </Message>
    </Wrapper>
  );
});
