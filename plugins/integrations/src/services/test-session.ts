import { AppError } from '@atendo/sdk';
import type { IntegrationType } from '../contract';
import type { TestSessionBody } from '../schemas/integrations';
import type { IntegrationStore } from './store';
import type { SafeHttp } from './safe-http';
import type { DialogflowSessions } from '../types/dialogflow';
import { signature, SIGNATURE_HEADER } from '../types/webhook';

/**
 * `POST /queueIntegration/testSession`: with `jsonContent` (Dialogflow's modal), detects the intent of
 * "teste" in `projectName` / `language` with that service account (the official client library); with `id`, tests the
 * stored integration (Dialogflow as above; webhook and n8n: a signed `{event: 'test'}` POST must answer
 * 2xx; Typebot: the bot must start). Answers the success text; 400 ERR_INTEGRATION_TEST_FAILED with the
 * reason otherwise, 404 ERR_NO_INTEGRATION_FOUND for an unknown id.
 */
export async function testSession(companyId: number, body: TestSessionBody, d: { store: IntegrationStore; http: SafeHttp; dialogflow: DialogflowSessions; types: () => Map<string, IntegrationType> }): Promise<string> {
  const http = d.http.request.bind(d.http);
  try {
    if (body.id !== undefined) {
      const i = await d.store.record(companyId, body.id);
      if (!i) throw new AppError('ERR_NO_INTEGRATION_FOUND');
      if (i.type === 'dialogflow') return await dialogflow(i.jsonContent, i.projectName, i.language);
      if (i.type === 'webhook' || i.type === 'n8n') {
        const payload = JSON.stringify({ event: 'test', sentAt: new Date().toISOString(), companyId, integration: { id: i.id, name: i.name, type: i.type } });
        const res = await http(i.urlN8N, { method: 'POST', body: payload, headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: signature(i.secret, payload) } });
        if (!res.ok) throw new Error(`answered ${res.status}`);
        return 'Integration answered';
      }
      if (i.type === 'typebot') {
        const res = await http(`${i.urlN8N.replace(/\/+$/, '')}/api/v1/typebots/${encodeURIComponent(i.typebotSlug)}/startChat`, { method: 'POST', json: { isStreamEnabled: false } });
        if (!res.ok) throw new Error(`answered ${res.status}`);
        return 'Typebot answered';
      }
      if (!d.types().has(i.type)) throw new Error(`unknown type ${i.type}`);
      return 'Nothing to test for this type';
    }
    if (!body.jsonContent) throw new AppError('ERR_VALIDATION', 'jsonContent or id is required');
    return await dialogflow(body.jsonContent, body.projectName ?? '', body.language ?? 'pt-BR');
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError('ERR_INTEGRATION_TEST_FAILED', (err as Error).message);
  }

  async function dialogflow(json: string, projectName: string, language: string): Promise<string> {
    if (!projectName) throw new AppError('ERR_VALIDATION', 'projectName is required');
    await d.dialogflow.detectIntent(json, projectName, `atendo-test-${companyId}`, 'teste', language || 'pt-BR');
    return 'Dialogflow session OK';
  }
}
