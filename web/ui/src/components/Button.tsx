import { forwardRef, type ButtonHTMLAttributes, type ReactNode } from 'react';
import styled, { css } from 'styled-components';

export type ButtonVariant = 'primary' | 'secondary' | 'text' | 'danger';

const StyledButton = styled.button<{ $variant: ButtonVariant; $full: boolean }>`
  display: inline-flex;
  align-items: center;
  justify-content: center;
  gap: ${(p) => p.theme.space(1)};
  min-height: 40px;
  padding: 0 ${(p) => p.theme.space(2)};
  border-radius: ${(p) => p.theme.radius.md};
  border: 1px solid transparent;
  font-weight: ${(p) => p.theme.font.weight.medium};
  font-size: ${(p) => p.theme.font.size.sm};
  letter-spacing: 0.02em;
  cursor: pointer;
  width: ${(p) => (p.$full ? '100%' : 'auto')};
  transition: background 0.15s ease, border-color 0.15s ease, color 0.15s ease;
  &:disabled { opacity: 0.6; cursor: not-allowed; }
  ${(p) => {
    const c = p.theme.colors;
    switch (p.$variant) {
      case 'primary':
        return css`background: ${c.primary}; color: ${c.onPrimary}; &:hover:not(:disabled) { background: ${c.primaryHover}; }`;
      case 'danger':
        return css`background: ${c.danger}; color: #fff; &:hover:not(:disabled) { filter: brightness(0.92); }`;
      case 'secondary':
        return css`background: transparent; color: ${c.primary}; border-color: ${c.primary}; &:hover:not(:disabled) { background: ${c.primarySoft}; }`;
      default:
        return css`background: transparent; color: ${c.primary}; &:hover:not(:disabled) { background: ${c.primarySoft}; }`;
    }
  }}
`;

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: ButtonVariant;
  fullWidth?: boolean;
  children?: ReactNode;
}

/** A button: primary (orange, default), secondary (outlined), text or danger. */
export const Button = forwardRef<HTMLButtonElement, ButtonProps>(function Button({ variant = 'primary', fullWidth = false, type = 'button', ...rest }, ref) {
  return <StyledButton ref={ref} type={type} $variant={variant} $full={fullWidth} {...rest} />;
});

const StyledIconButton = styled.button<{ $tone: 'inherit' | 'default' }>`
  position: relative;
  display: inline-flex;
  align-items: center;
  justify-content: center;
  width: 40px;
  height: 40px;
  padding: 0;
  border: none;
  border-radius: ${(p) => p.theme.radius.round};
  background: transparent;
  color: ${(p) => (p.$tone === 'inherit' ? 'inherit' : p.theme.colors.textMuted)};
  cursor: pointer;
  &:hover:not(:disabled) { background: rgba(127, 127, 127, 0.16); }
  &:disabled { opacity: 0.5; cursor: not-allowed; }
`;

export interface IconButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  /** Accessible name (also the tooltip). */
  label: string;
  tone?: 'inherit' | 'default';
}

/** A round icon-only button; `label` is its accessible name and tooltip. */
export const IconButton = forwardRef<HTMLButtonElement, IconButtonProps>(function IconButton({ label, tone = 'inherit', type = 'button', ...rest }, ref) {
  return <StyledIconButton ref={ref} type={type} aria-label={label} title={label} $tone={tone} {...rest} />;
});
