import { useCallback, useEffect, useId, useLayoutEffect, useRef, useState, type ReactNode, type RefObject } from 'react';
import { createPortal } from 'react-dom';
import styled from 'styled-components';
import { Icon } from '../icons';
import { IconButton } from './Button';

const Backdrop = styled.div`
  position: fixed;
  inset: 0;
  z-index: ${(p) => p.theme.z.modal};
  display: flex;
  align-items: center;
  justify-content: center;
  padding: ${(p) => p.theme.space(2)};
  background: ${(p) => p.theme.colors.backdrop};
`;

const Dialog = styled.div<{ $width: number }>`
  width: 100%;
  max-width: ${(p) => p.$width}px;
  max-height: calc(100vh - 32px);
  overflow: auto;
  background: ${(p) => p.theme.colors.surface};
  color: ${(p) => p.theme.colors.text};
  border-radius: ${(p) => p.theme.radius.lg};
  box-shadow: ${(p) => p.theme.shadow.lg};
`;

const DialogHeader = styled.header`
  display: flex;
  align-items: center;
  justify-content: space-between;
  padding: ${(p) => p.theme.space(2)} ${(p) => p.theme.space(3)};
  border-bottom: 1px solid ${(p) => p.theme.colors.border};
  h2 { margin: 0; font-size: ${(p) => p.theme.font.size.lg}; }
`;

const DialogBody = styled.div`
  padding: ${(p) => p.theme.space(3)};
`;

export interface ModalProps {
  open: boolean;
  title: string;
  onClose: () => void;
  /** Accessible name of the close button. */
  closeLabel: string;
  /** Maximum width in px (default 480; wide forms with tabs use more). */
  width?: number;
  children: ReactNode;
}

/** A modal dialog: backdrop click and Escape close it; focus moves into it when it opens. */
export function Modal({ open, title, onClose, closeLabel, width = 480, children }: ModalProps) {
  const titleId = useId();
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return undefined;
    const previous = document.activeElement as HTMLElement | null;
    const first = ref.current?.querySelector<HTMLElement>('input, select, textarea, button:not([data-close])');
    first?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') onClose();
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      previous?.focus?.();
    };
  }, [open, onClose]);
  if (!open) return null;
  return createPortal(
    <Backdrop onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <Dialog ref={ref} $width={width} role="dialog" aria-modal="true" aria-labelledby={titleId}>
        <DialogHeader>
          <h2 id={titleId}>{title}</h2>
          <IconButton label={closeLabel} tone="default" onClick={onClose} data-close="">
            <Icon name="close" />
          </IconButton>
        </DialogHeader>
        <DialogBody>{children}</DialogBody>
      </Dialog>
    </Backdrop>,
    document.body,
  );
}

const Panel = styled.div`
  position: fixed;
  z-index: ${(p) => p.theme.z.popover};
  min-width: 200px;
  overflow: auto;
  background: ${(p) => p.theme.colors.surface};
  color: ${(p) => p.theme.colors.text};
  border: 1px solid ${(p) => p.theme.colors.border};
  border-radius: ${(p) => p.theme.radius.md};
  box-shadow: ${(p) => p.theme.shadow.md};
`;

export interface PopoverProps {
  open: boolean;
  onClose: () => void;
  /** The element the panel hangs under. */
  anchorRef: RefObject<HTMLElement | null>;
  /** Accessible name of the panel. */
  label: string;
  /** Which edge of the anchor the panel aligns to. */
  align?: 'start' | 'end';
  width?: number;
  maxHeight?: number;
  role?: 'dialog' | 'menu';
  children: ReactNode;
}

/**
 * A panel anchored under an element (menus, notifications). Closes on Escape and on a click outside both
 * the panel and its anchor; keeps its place on resize and scroll.
 */
export function Popover({ open, onClose, anchorRef, label, align = 'end', width, maxHeight = 400, role = 'dialog', children }: PopoverProps) {
  const panel = useRef<HTMLDivElement>(null);
  const [pos, setPos] = useState<{ top?: number; bottom?: number; left?: number; right?: number }>({ top: 0 });
  const place = useCallback(() => {
    const rect = anchorRef.current?.getBoundingClientRect();
    if (!rect) return;
    // Under the anchor; above it when the panel does not fit below and there is more room above (an
    // anchor at the bottom of the page, such as the message input's buttons).
    const height = Math.min(panel.current?.offsetHeight || maxHeight, maxHeight);
    const below = window.innerHeight - rect.bottom - 6;
    const vertical = height > below && rect.top - 6 > below ? { bottom: window.innerHeight - rect.top + 6 } : { top: rect.bottom + 6 };
    if (align === 'end') setPos({ ...vertical, right: Math.max(8, window.innerWidth - rect.right) });
    else setPos({ ...vertical, left: Math.max(8, rect.left) });
  }, [anchorRef, align, maxHeight]);
  useLayoutEffect(() => {
    if (!open) return undefined;
    place();
    // Once more when its content has its size (lazily loaded panels grow after the first paint).
    const observer = typeof ResizeObserver !== 'undefined' && panel.current ? new ResizeObserver(() => place()) : undefined;
    if (observer && panel.current) observer.observe(panel.current);
    return () => observer?.disconnect();
  }, [open, place]);
  useEffect(() => {
    if (!open) return undefined;
    const onDown = (e: MouseEvent) => {
      const t = e.target as Node;
      if (panel.current?.contains(t) || anchorRef.current?.contains(t)) return;
      onClose();
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        onClose();
        anchorRef.current?.focus();
      }
    };
    document.addEventListener('mousedown', onDown);
    document.addEventListener('keydown', onKey);
    window.addEventListener('resize', place);
    window.addEventListener('scroll', place, true);
    return () => {
      document.removeEventListener('mousedown', onDown);
      document.removeEventListener('keydown', onKey);
      window.removeEventListener('resize', place);
      window.removeEventListener('scroll', place, true);
    };
  }, [open, onClose, anchorRef, place]);
  if (!open) return null;
  return createPortal(
    <Panel ref={panel} role={role} aria-label={label} style={{ ...pos, width, maxHeight }}>
      {children}
    </Panel>,
    document.body,
  );
}

/** A row of a menu panel. */
export const MenuItem = styled.button.attrs({ type: 'button', role: 'menuitem' })<{ $active?: boolean }>`
  display: flex;
  align-items: center;
  gap: ${(p) => p.theme.space(1.5)};
  width: 100%;
  padding: 10px ${(p) => p.theme.space(2)};
  border: none;
  background: ${(p) => (p.$active ? p.theme.colors.primarySoft : 'transparent')};
  color: ${(p) => (p.$active ? p.theme.colors.primary : p.theme.colors.text)};
  font-weight: ${(p) => (p.$active ? p.theme.font.weight.medium : p.theme.font.weight.regular)};
  text-align: left;
  cursor: pointer;
  &:hover { background: ${(p) => p.theme.colors.surfaceAlt}; }
`;
