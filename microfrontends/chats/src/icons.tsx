import type { SVGProps } from 'react';
import { PathIcon } from '@atendo/web-ui';

/** Line icons of the chat area that the shared set (@atendo/web-ui `Icon`) lacks: 24x24, stroke = currentColor. */
const PATHS = {
  plus: 'M12 5v14M5 12h14',
  edit: 'M12 20h9M16.5 3.5a2.1 2.1 0 0 1 3 3L7 19l-4 1 1-4z',
  trash: 'M3 6h18M8 6V4h8v2M19 6l-1 14H6L5 6M10 11v6M14 11v6',
  send: 'M22 2L11 13M22 2l-7 20-4-9-9-4z',
  search: 'M11 19a8 8 0 1 0 0-16 8 8 0 0 0 0 16zM21 21l-4.3-4.3',
  back: 'M15 18l-6-6 6-6',
} as const;

export type ChatIconName = keyof typeof PATHS;

/** A decorative icon (aria-hidden). */
export function ChatIcon({ name, ...rest }: { name: ChatIconName; size?: number } & Omit<SVGProps<SVGSVGElement>, 'name' | 'd'>) {
  return <PathIcon d={PATHS[name]} {...rest} />;
}
