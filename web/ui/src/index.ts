/**
 * @atendo/web-ui: Atendo's design tokens and basic components, shared (as a module-federation singleton)
 * by the shell and every area.
 */
export * from './tokens';
export * from './theme';
export * from './volume';
export * from './icons';
export * from './components/Button';
export * from './components/Field';
export * from './components/Surface';
export * from './components/Overlay';
export * from './sound';
export * from './whatsapp-text';
