import { errorResponses, IdParams, Type, type PluginApp } from '@atendo/sdk';
import { OptOutSchema, OptOutStateSchema, RetentionPreviewQuery, RetentionPreviewSchema, SettingsBody, SettingsSchema } from '../contract';
import type { Retention } from '../services/retention';
import type { OptOuts } from '../services/opt-out';
import type { SettingsStore } from '../services/settings';
import type { AuditService } from '@atendo/sdk';

const errors = errorResponses(400, 401, 403, 404);

/**
 * Opt-out and the compliance settings (issue 34 item 4), admin only, scoped to the caller's company:
 * - `GET /compliance/settings` -> `{optOutKeywords, optOutReply, retentionDays}` (defaults for a company
 *   that never saved them).
 * - `PUT /compliance/settings` `{optOutKeywords?, optOutReply?, retentionDays?}` -> the settings; audited
 *   (`setting`, `compliance`). Keywords are stored trimmed, upper case, without accents.
 * - `GET /compliance/opt-outs?pageNumber` -> `{records, count, hasMore}`: opted-out contacts, latest first.
 * - `POST /contacts/:id/opt-out` -> the contact's state: records an opt-out asked by other means (audited).
 * - `DELETE /contacts/:id/opt-out` -> the contact's state: reverses it at the customer's request (audited).
 * - `GET /compliance/retention/preview?days` -> `{days, contacts}`: the dry run of retention (item 3): how
 *   many contacts `days` would anonymize now. Changes nothing.
 */
export async function optOutRoutes(app: PluginApp, deps: { optOuts: OptOuts; settings: SettingsStore; audit: AuditService; retention: Retention }): Promise<void> {
  const { optOuts, settings } = deps;
  const admin = { role: 'admin' as const };

  app.get('/compliance/settings', {
    config: admin,
    schema: { tags: ['compliance'], summary: "The company's opt-out words and reply, and the retention period", response: { 200: SettingsSchema, ...errors } },
  }, (req) => settings.get(req.auth.companyId));

  app.put('/compliance/settings', {
    config: admin,
    schema: { tags: ['compliance'], summary: 'Change the opt-out words, the reply or the retention period', body: SettingsBody, response: { 200: SettingsSchema, ...errors } },
  }, async (req) => {
    const companyId = req.auth.companyId;
    const before = await settings.get(companyId);
    await settings.transaction(async (trx) => {
      await settings.save(trx, companyId, req.body);
      await deps.audit.record(trx, { req, entity: 'setting', entityId: 'compliance', action: 'update', before, after: { ...before, ...req.body } });
    });
    return settings.get(companyId);
  });

  app.get('/compliance/opt-outs', {
    config: admin,
    schema: { tags: ['compliance'], summary: 'Opted-out contacts, latest first', querystring: Type.Object({ pageNumber: Type.Optional(Type.Integer({ minimum: 1, maximum: 100000 })) }, { additionalProperties: false }), response: { 200: Type.Object({ records: Type.Array(OptOutSchema), count: Type.Integer(), hasMore: Type.Boolean() }), ...errors } },
  }, (req) => optOuts.list(req.auth.companyId, req.query.pageNumber));

  app.post('/contacts/:id/opt-out', {
    config: admin,
    schema: { tags: ['compliance'], summary: 'Record that the contact opted out (asked by other means)', params: IdParams, response: { 200: OptOutStateSchema, ...errors } },
  }, (req) => optOuts.record(req, req.params.id));

  app.delete('/contacts/:id/opt-out', {
    config: admin,
    schema: { tags: ['compliance'], summary: "Reverse the contact's opt-out at the customer's request", params: IdParams, response: { 200: OptOutStateSchema, ...errors } },
  }, (req) => optOuts.reverse(req, req.params.id));

  app.get('/compliance/retention/preview', {
    config: admin,
    schema: { tags: ['compliance'], summary: 'Dry run of retention: how many contacts it would anonymize now', querystring: RetentionPreviewQuery, response: { 200: RetentionPreviewSchema, ...errors } },
  }, (req) => deps.retention.preview(req.auth.companyId, req.query.days));
}
