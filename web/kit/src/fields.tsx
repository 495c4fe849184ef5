import { useId, type Ref, type TextareaHTMLAttributes } from 'react';
import styled from 'styled-components';

/**
 * Form fields beyond @atendo/web-ui's TextField and SelectField that several areas' dialogs use: a
 * multi-line text input and a checkbox line (same label, border and message line as web-ui's fields).
 */

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

const Area = styled.textarea<{ $invalid: boolean }>`
  min-height: 72px;
  padding: 10px 12px;
  resize: vertical;
  border: 1px solid ${(p) => (p.$invalid ? p.theme.colors.danger : p.theme.colors.border)};
  border-radius: ${(p) => p.theme.radius.md};
  background: ${(p) => p.theme.colors.surface};
  color: ${(p) => p.theme.colors.text};
  font: inherit;
  font-size: ${(p) => p.theme.font.size.md};
  &:focus { outline: none; border-color: ${(p) => p.theme.colors.primary}; box-shadow: 0 0 0 3px ${(p) => p.theme.colors.primarySoft}; }
`;

const Message = styled.div<{ $error: boolean }>`
  min-height: 1em;
  font-size: ${(p) => p.theme.font.size.xs};
  color: ${(p) => (p.$error ? p.theme.colors.danger : p.theme.colors.textMuted)};
`;

/** A labelled multi-line text input with an error or helper line (`ref` reaches the textarea). */
export function TextAreaField({ label, error, helperText, id, ref, ...rest }: TextareaHTMLAttributes<HTMLTextAreaElement> & { label: string; error?: string | false; helperText?: string; ref?: Ref<HTMLTextAreaElement> }) {
  const auto = useId();
  const areaId = id ?? auto;
  return (
    <Wrapper>
      <Label htmlFor={areaId}>{label}</Label>
      <Area ref={ref} id={areaId} $invalid={Boolean(error)} aria-invalid={error ? true : undefined} aria-describedby={`${areaId}-msg`} {...rest} />
      <Message id={`${areaId}-msg`} $error={Boolean(error)} role={error ? 'alert' : undefined}>
        {error || helperText || ''}
      </Message>
    </Wrapper>
  );
}

const CheckLine = styled.label`
  display: flex;
  align-items: center;
  gap: ${(p) => p.theme.space(1)};
  min-height: 40px;
  cursor: pointer;
  input { width: 18px; height: 18px; accent-color: ${(p) => p.theme.colors.primary}; }
`;

/** A checkbox with its label on one line. */
export function CheckboxField({ label, checked, onChange, name, disabled, testId }: { label: string; checked: boolean; onChange: (checked: boolean) => void; name?: string; disabled?: boolean; testId?: string }) {
  return (
    <CheckLine>
      <input type="checkbox" name={name} checked={checked} disabled={disabled} onChange={(e) => onChange(e.target.checked)} data-testid={testId} />
      <span>{label}</span>
    </CheckLine>
  );
}

