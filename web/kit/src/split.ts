import styled from 'styled-components';

/**
 * The pieces of the list + detail screens (tickets, chats): on wide screens the list and the detail side
 * by side, on narrow ones two tabs switching between them.
 */

/** The detail side; hidden (not unmounted) while the narrow layout shows the list tab. */
export const SplitDetail = styled.div<{ $hidden: boolean }>`
  display: ${(p) => (p.$hidden ? 'none' : 'flex')};
  flex: 1;
  min-width: 0;
  min-height: 0;
  flex-direction: column;
`;

/** The narrow layout's tab bar. */
export const SplitTabs = styled.div`
  display: flex;
  flex: none;
  border-bottom: 1px solid ${(p) => p.theme.colors.border};
  background: ${(p) => p.theme.colors.surface};
`;

/** One tab of SplitTabs. */
export const SplitTab = styled.button<{ $active: boolean }>`
  flex: 1;
  min-height: 44px;
  border: none;
  border-bottom: 3px solid ${(p) => (p.$active ? p.theme.colors.primary : 'transparent')};
  background: transparent;
  color: ${(p) => (p.$active ? p.theme.colors.primary : p.theme.colors.textMuted)};
  font-weight: ${(p) => p.theme.font.weight.medium};
  text-transform: uppercase;
  cursor: pointer;
`;

/** The detail side's placeholder when nothing is selected. */
export const SplitPrompt = styled.div`
  display: flex;
  flex: 1;
  align-items: center;
  justify-content: center;
  background: ${(p) => p.theme.colors.surfaceAlt};
`;
