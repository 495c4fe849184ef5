import 'styled-components';
import type { AtendoTheme } from './tokens';

declare module 'styled-components' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  export interface DefaultTheme extends AtendoTheme {}
}
