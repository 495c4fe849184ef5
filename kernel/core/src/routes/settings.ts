import type { FastifyInstance } from 'fastify';
import { AppError, Type, type Static } from '@atendo/sdk';
import { COMPANY_SETTING_DEFAULTS, COMPANY_SETTING_VALUES, SETTING_DEFAULTS, SUPER_ONLY_SETTINGS } from '../identity/defaults';
import type { CoreDeps } from './deps';

/** Longest value a setting may hold, in characters. */
export const SETTING_VALUE_MAX = 5000;

const has = (o: object, key: string) => Object.prototype.hasOwnProperty.call(o, key);

/**
 * Allowed values of a legacy setting (`/settings/:key`): the company-setting enumeration of the same key
 * when it has one, `enabled`/`disabled` when its default is one of those, otherwise any string.
 */
export function legacySettingValues(key: string): string[] {
  const listed = COMPANY_SETTING_VALUES[key];
  if (listed && listed.length) return listed;
  const def = SETTING_DEFAULTS[key];
  return def === 'enabled' || def === 'disabled' ? ['enabled', 'disabled'] : [];
}

/** Throws 400 ERR_VALIDATION unless `value` is allowed (`allowed` empty: any string up to 5,000 chars). */
function assertValue(key: string, value: string, allowed: string[]): void {
  if (value.length > SETTING_VALUE_MAX) throw new AppError('ERR_VALIDATION', `${key} is longer than ${SETTING_VALUE_MAX} characters`);
  if (allowed.length && !allowed.includes(value)) {
    throw new AppError('ERR_VALIDATION', `${key} must be one of ${allowed.join(', ')}`, { extra: { allowed } });
  }
}

const Timestamp = Type.Unsafe<string | Date>({ type: 'string', format: 'date-time' });
const Setting = Type.Object({
  id: Type.Optional(Type.Integer()),
  key: Type.String(),
  value: Type.String(),
  companyId: Type.Integer(),
  createdAt: Type.Optional(Timestamp),
  updatedAt: Type.Optional(Timestamp),
});
type Setting = Static<typeof Setting>;
const KeyParams = Type.Object({ key: Type.String({ minLength: 1, maxLength: 100 }) });
const SettingBody = Type.Object({
  value: Type.String({ maxLength: SETTING_VALUE_MAX }),
  /** Sent by the old client; the path's key wins. */
  key: Type.Optional(Type.String({ maxLength: 100 })),
});
const SettingsObject = Type.Object({ id: Type.Integer(), companyId: Type.Integer() }, { additionalProperties: Type.String() });
const CompanyIdParams = Type.Object({ companyId: Type.String({ maxLength: 40, description: 'Ignored: the caller company is used' }) });
const ColumnQuery = Type.Object({ column: Type.String({ minLength: 1, maxLength: 100 }) });
const CompanySettingBody = Type.Object({
  column: Type.String({ minLength: 1, maxLength: 100 }),
  data: Type.String({ maxLength: SETTING_VALUE_MAX }),
});

/**
 * Settings routes (spec 1-platform.md §3 "Setting", §6, §7; wire-shapes "GET /settings",
 * "GET /companySettings/:companyId"). Everything is scoped to the caller's company (`req.auth.companyId`).
 *
 * Legacy key/value settings (table `settings`; valid keys are those of `SETTING_DEFAULTS`):
 * - `GET /settings` (signed in) -> `Setting[]` `{id?, key, value, companyId, createdAt?, updatedAt?}`, one per
 *   stored row plus one per known key without a row (its default; no id or timestamps), ordered by key.
 * - `GET /settings/:key` (signed in) -> `Setting`; 404 ERR_NO_SETTING_FOUND for unknown keys.
 * - `PUT /settings/:key` `{value, key?}` (admin) -> the upserted `Setting`. 404 ERR_NO_SETTING_FOUND for
 *   unknown keys; 403 ERR_NO_PERMISSION for `SUPER_ONLY_SETTINGS` (userCreation) unless super; 400
 *   ERR_VALIDATION for a value outside the key's enumeration. Emits `company-{id}-settings`
 *   `{action:'update', setting}` after the write.
 *
 * Company settings (table `company_settings`, shown as one object `{id, companyId, <key>: value, ...}` with
 * defaults filled in):
 * - `GET /companySettings/:companyId` and `GET /companySettings` (signed in) -> the object. The path id is
 *   ignored, as in the product family: a caller only ever sees its own company.
 * - `GET /companySettingOne?column=<key>` (signed in) -> `{<key>: value}`; 404 ERR_NO_SETTING_FOUND.
 * - `PUT /companySettings` `{column, data}` (admin) -> `{response: true, result: <object>}`. 404
 *   ERR_NO_SETTING_FOUND for an unknown column; 400 ERR_VALIDATION when `data` is not one of the key's
 *   `COMPANY_SETTING_VALUES`, or longer than 5,000 chars. Emits `company-{id}-settings`
 *   `{action:'update', setting: {key, value}}` after the write.
 */
export async function settingsRoutes(app: FastifyInstance, deps: CoreDeps): Promise<void> {
  const { db, identity, realtime } = deps;

  const readLegacy = async (companyId: number): Promise<Setting[]> => {
    const rows: Setting[] = await db('settings').where({ companyId }).select('id', 'key', 'value', 'companyId', 'createdAt', 'updatedAt');
    const seen = new Set(rows.map((r) => r.key));
    const out = [...rows];
    for (const [key, value] of Object.entries(SETTING_DEFAULTS)) if (!seen.has(key)) out.push({ key, value, companyId });
    return out.sort((a, b) => a.key.localeCompare(b.key));
  };

  app.get('/settings', {
    schema: { tags: ['settings'], summary: "The caller company's legacy key/value settings (defaults filled in)", response: { 200: Type.Array(Setting) } },
  }, async (req) => readLegacy(req.auth.companyId));

  app.get('/settings/:key', {
    schema: { tags: ['settings'], summary: 'One legacy setting', params: KeyParams, response: { 200: Setting } },
  }, async (req) => {
    const { key } = req.params as Static<typeof KeyParams>;
    if (!has(SETTING_DEFAULTS, key)) throw new AppError('ERR_NO_SETTING_FOUND');
    const companyId = req.auth.companyId;
    const row = await db('settings').where({ companyId, key }).first('id', 'key', 'value', 'companyId', 'createdAt', 'updatedAt');
    return row ?? { key, value: SETTING_DEFAULTS[key], companyId };
  });

  app.put('/settings/:key', {
    config: { role: 'admin' },
    schema: { tags: ['settings'], summary: 'Set a legacy setting (userCreation: super only)', params: KeyParams, body: SettingBody, response: { 200: Setting } },
  }, async (req) => {
    const { key } = req.params as Static<typeof KeyParams>;
    const { value } = req.body as Static<typeof SettingBody>;
    if (!has(SETTING_DEFAULTS, key)) throw new AppError('ERR_NO_SETTING_FOUND');
    if (SUPER_ONLY_SETTINGS.has(key) && !req.auth.super) throw new AppError('ERR_NO_PERMISSION');
    assertValue(key, value, legacySettingValues(key));
    const companyId = req.auth.companyId;
    const [setting] = (await db('settings')
      .insert({ companyId, key, value })
      .onConflict(['companyId', 'key'])
      .merge({ value, updatedAt: db.fn.now() })
      .returning(['id', 'key', 'value', 'companyId', 'createdAt', 'updatedAt'])) as Setting[];
    realtime.emitToCompany(companyId, `company-${companyId}-settings`, { action: 'update', setting });
    return setting;
  });

  const readObject = { tags: ['settings'], summary: "The caller company's settings as one object (defaults filled in)", response: { 200: SettingsObject } };
  app.get('/companySettings', { schema: readObject }, async (req) => identity.companySettingsObject(req.auth.companyId));
  app.get('/companySettings/:companyId', {
    schema: { ...readObject, params: CompanyIdParams, description: "The path id is ignored: the caller's company is always used." },
  }, async (req) => identity.companySettingsObject(req.auth.companyId));

  app.get('/companySettingOne', {
    schema: {
      tags: ['settings'],
      summary: 'One company setting as a single-key object {<column>: value}',
      querystring: ColumnQuery,
      response: { 200: Type.Object({}, { additionalProperties: Type.String() }) },
    },
  }, async (req) => {
    const { column } = req.query as Static<typeof ColumnQuery>;
    if (!has(COMPANY_SETTING_DEFAULTS, column)) throw new AppError('ERR_NO_SETTING_FOUND');
    return { [column]: await identity.getCompanySetting(req.auth.companyId, column) };
  });

  app.put('/companySettings', {
    config: { role: 'admin' },
    schema: {
      tags: ['settings'],
      summary: 'Set one company setting',
      body: CompanySettingBody,
      response: { 200: Type.Object({ response: Type.Boolean(), result: SettingsObject }) },
    },
  }, async (req) => {
    const { column, data } = req.body as Static<typeof CompanySettingBody>;
    if (!has(COMPANY_SETTING_DEFAULTS, column)) throw new AppError('ERR_NO_SETTING_FOUND');
    assertValue(column, data, COMPANY_SETTING_VALUES[column] ?? []);
    const companyId = req.auth.companyId;
    await db('companySettings')
      .insert({ companyId, key: column, value: data })
      .onConflict(['companyId', 'key'])
      .merge({ value: data, updatedAt: db.fn.now() });
    realtime.emitToCompany(companyId, `company-${companyId}-settings`, { action: 'update', setting: { key: column, value: data } });
    return { response: true, result: await identity.companySettingsObject(companyId) };
  });
}
