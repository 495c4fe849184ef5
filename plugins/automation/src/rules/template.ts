import { fillMessageVariables, type MessageVariableContext } from '@atendo/sdk';

/** What the bot's texts may refer to (the SDK's message variables) and the clock they are read on. */
export interface TemplateVars extends MessageVariableContext {
  /** Clock of `{{ms}}`, `{{hour}}`, `{{date}}`, `{{data_hora}}`, `{{protocol}}` (default: now). */
  now?: Date;
  /** IANA zone of those clock values (default America/Sao_Paulo): the company's `timeZone` setting. */
  timeZone?: string;
}

export const DEFAULT_TIME_ZONE = 'America/Sao_Paulo';

/**
 * Fills the product family's message variables in a bot text (`{{firstName}}`, `{{name}}`, `{{ms}}`,
 * `{{protocol}}`, `{{queue}}`, ... : the SDK's `fillMessageVariables`, one definition for every outgoing
 * text), on the bot's clock and the company's time zone. The tickets plugin fills any variable left on
 * every stored text, so the bot fills them first to use the company's clock.
 */
export function renderTemplate(text: string, vars: TemplateVars = {}): string {
  const { now, timeZone, ...ctx } = vars;
  return fillMessageVariables(text, ctx, now ?? new Date(), timeZone ?? DEFAULT_TIME_ZONE);
}
