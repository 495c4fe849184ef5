export * from './lifecycles';
export * from './router';
export * from './hooks';
export * from './split';
export * from './dialogs';
export * from './format';
