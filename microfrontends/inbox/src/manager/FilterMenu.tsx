import { useId, useRef, useState } from 'react';
import styled from 'styled-components';
import { Popover } from '@atendo/web-ui';

const Trigger = styled.button<{ $active: boolean }>`
  display: inline-flex;
  align-items: center;
  gap: 4px;
  min-height: 30px;
  padding: 0 10px;
  border: 1px solid ${(p) => (p.$active ? p.theme.colors.primary : p.theme.colors.border)};
  border-radius: ${(p) => p.theme.radius.round};
  background: ${(p) => (p.$active ? p.theme.colors.primarySoft : 'transparent')};
  color: ${(p) => (p.$active ? p.theme.colors.primary : p.theme.colors.text)};
  font-size: ${(p) => p.theme.font.size.sm};
  cursor: pointer;
`;

const Options = styled.div`
  display: flex;
  flex-direction: column;
  padding: 6px 0;
  label {
    display: flex;
    align-items: center;
    gap: 8px;
    padding: 6px 14px;
    cursor: pointer;
  }
  label:hover { background: ${(p) => p.theme.colors.surfaceAlt}; }
`;

const Swatch = styled.span<{ $color: string }>`
  width: 10px;
  height: 10px;
  border-radius: 50%;
  background: ${(p) => p.$color};
`;

const Empty = styled.div`
  padding: 10px 14px;
  color: ${(p) => p.theme.colors.textMuted};
`;

export interface FilterOption<V extends string | number> {
  value: V;
  label: string;
  color?: string;
}

/**
 * A filter of the search tab: a pill button ("Tags (2)") opening a checklist of options. `selected` holds
 * the checked values; `onChange` receives the new set in option order.
 */
export function FilterMenu<V extends string | number>({ label, options, selected, emptyText, onChange, testId }: { label: string; options: FilterOption<V>[]; selected: V[]; emptyText: string; onChange: (next: V[]) => void; testId?: string }) {
  const [open, setOpen] = useState(false);
  const anchor = useRef<HTMLButtonElement>(null);
  const id = useId();
  const toggle = (v: V) => {
    const set = new Set(selected);
    if (set.has(v)) set.delete(v);
    else set.add(v);
    onChange(options.map((o) => o.value).filter((x) => set.has(x)));
  };
  return (
    <>
      <Trigger ref={anchor} type="button" $active={selected.length > 0} aria-haspopup="dialog" aria-expanded={open} aria-controls={open ? id : undefined} onClick={() => setOpen((o) => !o)} data-testid={testId}>
        {label}
        {selected.length ? ` (${selected.length})` : ''}
      </Trigger>
      <Popover open={open} onClose={() => setOpen(false)} anchorRef={anchor} label={label} align="start" width={240} maxHeight={320}>
        <Options id={id}>
          {options.length ? (
            options.map((o) => (
              <label key={String(o.value)}>
                <input type="checkbox" checked={selected.includes(o.value)} onChange={() => toggle(o.value)} />
                {o.color ? <Swatch $color={o.color} aria-hidden="true" /> : null}
                <span>{o.label}</span>
              </label>
            ))
          ) : (
            <Empty>{emptyText}</Empty>
          )}
        </Options>
      </Popover>
    </>
  );
}
