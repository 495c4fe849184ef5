import type { HTMLAttributes, ReactNode } from 'react';
import styled, { keyframes } from 'styled-components';
import { Icon, type IconName } from '../icons';

/** A raised surface with padding. */
export const Card = styled.section`
  background: ${(p) => p.theme.colors.surface};
  border: 1px solid ${(p) => p.theme.colors.border};
  border-radius: ${(p) => p.theme.radius.lg};
  box-shadow: ${(p) => p.theme.shadow.sm};
  padding: ${(p) => p.theme.space(3)};
`;

/** A page heading. */
export const Title = styled.h1`
  margin: 0 0 ${(p) => p.theme.space(2)};
  font-size: ${(p) => p.theme.font.size.xl};
  font-weight: ${(p) => p.theme.font.weight.bold};
  color: ${(p) => p.theme.colors.text};
`;

/** Secondary text. */
export const Muted = styled.p`
  margin: 0;
  color: ${(p) => p.theme.colors.textMuted};
`;

/** A small dot or count over an icon (e.g. the connections warning). */
export const Badge = styled.span<{ $tone?: 'danger' | 'warning' | 'primary' }>`
  position: absolute;
  top: 4px;
  right: 4px;
  min-width: 10px;
  height: 10px;
  border-radius: ${(p) => p.theme.radius.round};
  background: ${(p) => p.theme.colors[p.$tone ?? 'danger']};
  border: 2px solid ${(p) => p.theme.colors.surface};
`;

const spin = keyframes`to { transform: rotate(360deg); }`;

const SpinnerRing = styled.span<{ $size: number }>`
  display: inline-block;
  width: ${(p) => p.$size}px;
  height: ${(p) => p.$size}px;
  border: 3px solid ${(p) => p.theme.colors.primarySoft};
  border-top-color: ${(p) => p.theme.colors.primary};
  border-radius: 50%;
  animation: ${spin} 0.8s linear infinite;
`;

/** A loading indicator; `label` is read by screen readers. */
export function Spinner({ size = 32, label }: { size?: number; label: string }) {
  return <SpinnerRing $size={size} role="progressbar" aria-label={label} />;
}

const Centered = styled.div`
  display: flex;
  flex: 1;
  min-height: 200px;
  align-items: center;
  justify-content: center;
`;

/** A spinner centred in the available space. */
export function Loading({ label }: { label: string }) {
  return (
    <Centered>
      <Spinner label={label} />
    </Centered>
  );
}

const EmptyBox = styled.div`
  display: flex;
  flex-direction: column;
  align-items: center;
  gap: ${(p) => p.theme.space(1)};
  padding: ${(p) => p.theme.space(3)};
  text-align: center;
  color: ${(p) => p.theme.colors.textMuted};
`;

/** An empty state: an icon, a line of text and optional actions. */
export function EmptyState({ icon = 'inbox', text, children, ...rest }: { icon?: IconName; text: string; children?: ReactNode } & HTMLAttributes<HTMLDivElement>) {
  return (
    <EmptyBox {...rest}>
      <Icon name={icon} size={32} />
      <span>{text}</span>
      {children}
    </EmptyBox>
  );
}
