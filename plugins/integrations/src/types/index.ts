import type { IntegrationType } from '../contract';
import { n8nType, webhookType } from './webhook';
import { typebotType } from './typebot';
import { dialogflowType, type DialogflowSessions } from './dialogflow';

/** The built-in integration types (`dialogflow`: the Dialogflow clients of the plugin). */
export function builtinTypes(dialogflow: DialogflowSessions): IntegrationType[] {
  return [webhookType, n8nType, typebotType, dialogflowType(dialogflow)];
}
