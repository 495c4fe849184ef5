import type { ReactNode } from 'react';
import styled from 'styled-components';

/**
 * Form pieces the admin screens need beyond @atendo/web-ui's fields: (the text area and checkbox line come
 * from @atendo/web-kit) a two-column grid, tabs, and a toggle group of coloured chips (queues of a user or a connection).
 */

export { TextAreaField, CheckboxField } from '@atendo/web-kit';

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

/** Fields two to a row on wide dialogs, one on narrow ones. */
export const FormGrid = styled.div`
  display: grid;
  grid-template-columns: repeat(auto-fit, minmax(200px, 1fr));
  gap: 0 ${(p) => p.theme.space(2)};
`;

/** A form section title. */
export const SectionTitle = styled.h3`
  margin: ${(p) => p.theme.space(1.5)} 0 ${(p) => p.theme.space(1)};
  font-size: ${(p) => p.theme.font.size.md};
  font-weight: ${(p) => p.theme.font.weight.medium};
`;

const TabList = styled.div`
  display: flex;
  flex-wrap: wrap;
  gap: 2px;
  margin-bottom: ${(p) => p.theme.space(2)};
  border-bottom: 1px solid ${(p) => p.theme.colors.border};
`;

const Tab = styled.button<{ $active: boolean }>`
  min-height: 40px;
  padding: 0 ${(p) => p.theme.space(2)};
  border: none;
  border-bottom: 3px solid ${(p) => (p.$active ? p.theme.colors.primary : 'transparent')};
  background: transparent;
  color: ${(p) => (p.$active ? p.theme.colors.primary : p.theme.colors.textMuted)};
  font-weight: ${(p) => p.theme.font.weight.medium};
  cursor: pointer;
`;

/** Tabs over a dialog or page; the panels are the caller's (render the one whose key is `value`). */
export function Tabs<K extends string>({ tabs, value, onChange, label }: { tabs: { key: K; label: string }[]; value: K; onChange: (key: K) => void; label: string }) {
  return (
    <TabList role="tablist" aria-label={label}>
      {tabs.map((tab) => (
        <Tab key={tab.key} type="button" role="tab" aria-selected={tab.key === value} $active={tab.key === value} onClick={() => onChange(tab.key)} data-testid={`tab-${tab.key}`}>
          {tab.label}
        </Tab>
      ))}
    </TabList>
  );
}

const ChipRow = styled.div`
  display: flex;
  flex-wrap: wrap;
  gap: ${(p) => p.theme.space(1)};
  min-height: 40px;
  align-items: center;
`;

const Toggle = styled.button<{ $on: boolean; $color: string }>`
  padding: 4px 12px;
  border-radius: ${(p) => p.theme.radius.round};
  border: 2px solid ${(p) => p.$color};
  background: ${(p) => (p.$on ? p.$color : 'transparent')};
  color: ${(p) => (p.$on ? '#fff' : p.theme.colors.text)};
  text-shadow: ${(p) => (p.$on ? '0 0 2px rgba(0, 0, 0, 0.45)' : 'none')};
  font-size: ${(p) => p.theme.font.size.sm};
  cursor: pointer;
`;

/** A multi-select of coloured items as toggle chips (queues); `empty` shows when there is nothing to pick. */
export function ChipToggles({ label, items, selected, onChange, empty }: { label: string; items: { id: number; name: string; color: string }[]; selected: number[]; onChange: (ids: number[]) => void; empty: ReactNode }) {
  return (
    <Wrapper role="group" aria-label={label}>
      <Label as="span">{label}</Label>
      <ChipRow>
        {items.length === 0
          ? empty
          : items.map((item) => {
              const on = selected.includes(item.id);
              return (
                <Toggle
                  key={item.id}
                  type="button"
                  aria-pressed={on}
                  $on={on}
                  $color={item.color || '#888'}
                  onClick={() => onChange(on ? selected.filter((id) => id !== item.id) : [...selected, item.id])}
                  data-testid={`toggle-${item.id}`}
                >
                  {item.name}
                </Toggle>
              );
            })}
      </ChipRow>
    </Wrapper>
  );
}

/** An error line under a control that is not a web-ui field (file inputs). */
export const ErrorLine = styled.div`
  font-size: ${(p) => p.theme.font.size.xs};
  color: ${(p) => p.theme.colors.danger};
`;
