/**
 * Design tokens of Atendo's web UI: an orange primary (spec 1-platform.md §4 "Theme"), light and dark
 * themes, spacing, radii and type. Every area styles itself from these through styled-components' theme.
 */

export type ThemeMode = 'light' | 'dark';

/** The orange scale the primary colour is taken from. */
export const orange = {
  50: '#FFF3E0',
  100: '#FFE0B2',
  200: '#FFCC80',
  300: '#FFB74D',
  400: '#FFA726',
  500: '#FF9800',
  600: '#FB8C00',
  700: '#F57C00',
  800: '#EF6C00',
  900: '#E65100',
} as const;

export interface AtendoColors {
  primary: string;
  primaryHover: string;
  primarySoft: string;
  onPrimary: string;
  background: string;
  surface: string;
  surfaceAlt: string;
  border: string;
  text: string;
  textMuted: string;
  topBar: string;
  onTopBar: string;
  menu: string;
  menuActive: string;
  success: string;
  warning: string;
  danger: string;
  info: string;
  focus: string;
  backdrop: string;
}

export interface AtendoTheme {
  mode: ThemeMode;
  colors: AtendoColors;
  /** Spacing unit in px: `space(2)` = 16px. */
  space: (n: number) => string;
  radius: { sm: string; md: string; lg: string; round: string };
  shadow: { sm: string; md: string; lg: string };
  font: { family: string; size: { xs: string; sm: string; md: string; lg: string; xl: string; xxl: string }; weight: { regular: number; medium: number; bold: number } };
  layout: { topBarHeight: number; menuWidth: number; menuCollapsedWidth: number };
  z: { menu: number; topBar: number; popover: number; modal: number; toast: number };
}

const shared = {
  space: (n: number) => `${n * 8}px`,
  radius: { sm: '4px', md: '8px', lg: '12px', round: '999px' },
  font: {
    family: "'Inter', 'Roboto', 'Segoe UI', system-ui, -apple-system, 'Helvetica Neue', Arial, sans-serif",
    size: { xs: '0.75rem', sm: '0.875rem', md: '1rem', lg: '1.125rem', xl: '1.375rem', xxl: '1.75rem' },
    weight: { regular: 400, medium: 500, bold: 700 },
  },
  layout: { topBarHeight: 56, menuWidth: 248, menuCollapsedWidth: 60 },
  z: { menu: 1100, topBar: 1200, popover: 1300, modal: 1400, toast: 1500 },
};

/** The light theme (default when the system does not prefer dark). */
export const lightTheme: AtendoTheme = {
  ...shared,
  mode: 'light',
  colors: {
    primary: orange[700],
    primaryHover: orange[900],
    primarySoft: orange[50],
    onPrimary: '#FFFFFF',
    background: '#F4F5F7',
    surface: '#FFFFFF',
    surfaceAlt: '#F9FAFB',
    border: '#E0E3E8',
    text: '#1F2328',
    textMuted: '#5F6670',
    topBar: orange[700],
    onTopBar: '#FFFFFF',
    menu: '#FFFFFF',
    menuActive: orange[50],
    success: '#2E7D32',
    warning: '#B26A00',
    danger: '#C62828',
    info: '#1565C0',
    focus: orange[400],
    backdrop: 'rgba(15, 18, 22, 0.45)',
  },
  shadow: {
    sm: '0 1px 2px rgba(16, 24, 40, 0.08)',
    md: '0 4px 12px rgba(16, 24, 40, 0.12)',
    lg: '0 12px 32px rgba(16, 24, 40, 0.18)',
  },
};

/** The dark theme. */
export const darkTheme: AtendoTheme = {
  ...shared,
  mode: 'dark',
  colors: {
    primary: orange[500],
    primaryHover: orange[300],
    primarySoft: 'rgba(255, 152, 0, 0.14)',
    onPrimary: '#1A1A1A',
    background: '#121316',
    surface: '#1C1E22',
    surfaceAlt: '#23262B',
    border: '#33373D',
    text: '#ECEDEE',
    textMuted: '#A3A9B1',
    topBar: '#1C1E22',
    onTopBar: '#ECEDEE',
    menu: '#1C1E22',
    menuActive: 'rgba(255, 152, 0, 0.16)',
    success: '#66BB6A',
    warning: '#FFB74D',
    danger: '#EF5350',
    info: '#64B5F6',
    focus: orange[300],
    backdrop: 'rgba(0, 0, 0, 0.6)',
  },
  shadow: {
    sm: '0 1px 2px rgba(0, 0, 0, 0.4)',
    md: '0 4px 12px rgba(0, 0, 0, 0.5)',
    lg: '0 12px 32px rgba(0, 0, 0, 0.6)',
  },
};

/** The theme object for a mode. */
export function themeFor(mode: ThemeMode): AtendoTheme {
  return mode === 'dark' ? darkTheme : lightTheme;
}
