/** Types of plugin-error-texts.cjs (see there for the file format). */

export type ErrorTextLanguage = 'pt-BR' | 'en' | 'es' | 'tr';
/** Texts of error codes in the four interface languages: `{ 'pt-BR': { ERR_X: '…' }, en, es, tr }`. */
export type ErrorTexts = Record<ErrorTextLanguage, Record<string, string>>;

export const ROOT_DIR: string;
export const LANGUAGES: readonly ErrorTextLanguage[];
export function validateErrorTexts(json: unknown, file: string): ErrorTexts;
export function loadPluginErrorTexts(root?: string): Record<string, ErrorTexts>;
/** The texts of plugin packages installed from outside the workspaces, keyed `node_modules/<package name>`. */
export function loadExternalPluginErrorTexts(root?: string): Record<string, ErrorTexts>;
/** Every errors.json the shell's build reads (workspace plugins, then external plugin packages). */
export function pluginErrorTextFiles(root?: string): string[];
export function mergeErrorTexts(byPlugin: Record<string, ErrorTexts>): ErrorTexts;
