import type { IntegrationType } from '../contract';
import { n8nType, webhookType } from './webhook';
import { typebotType } from './typebot';
import { dialogflowType } from './dialogflow';

/** The built-in integration types (`dialogflowUrl`: Dialogflow's API base URL). */
export function builtinTypes(dialogflowUrl: string): IntegrationType[] {
  return [webhookType, n8nType, typebotType, dialogflowType(dialogflowUrl)];
}
