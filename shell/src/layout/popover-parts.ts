import styled from 'styled-components';

/**
 * Styled pieces shared by the top bar's popovers (announcements, internal chat): the icon button's wrapper
 * with its count badge, and the popover's header and list.
 */

/** Wraps a top-bar icon button so a `BadgeCount` can sit on its corner. */
export const BadgeWrap = styled.span`
  position: relative;
  display: inline-flex;
`;

/** The unread count on a top-bar icon button. */
export const BadgeCount = styled.span`
  position: absolute;
  top: 2px;
  right: 0;
  min-width: 18px;
  height: 18px;
  padding: 0 4px;
  border-radius: ${(p) => p.theme.radius.round};
  background: ${(p) => p.theme.colors.danger};
  color: #fff;
  font-size: 11px;
  font-weight: ${(p) => p.theme.font.weight.bold};
  line-height: 18px;
  text-align: center;
  pointer-events: none;
`;

/** A popover's title row. */
export const PopoverHeader = styled.div`
  padding: 12px 16px;
  font-weight: ${(p) => p.theme.font.weight.medium};
  border-bottom: 1px solid ${(p) => p.theme.colors.border};
`;

/** A popover's unstyled list. */
export const PopoverList = styled.ul`
  list-style: none;
  margin: 0;
  padding: 0;
`;
