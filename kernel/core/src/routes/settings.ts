import type { Knex } from 'knex';
import { AppError, Type, type Static, type PluginApp } from '@atendo/sdk';
import { COMPANY_SETTING_DEFAULTS, COMPANY_SETTING_VALUES, SETTING_DEFAULTS, SUPER_ONLY_SETTINGS } from '../identity/defaults';
import type { CoreDeps } from './deps';

/** Longest value a setting may hold, in characters. */
export const SETTING_VALUE_MAX = 5000;

const has = (o: object, key: string) => Object.prototype.hasOwnProperty.call(o, key);

/**
 * Keys that are both a legacy setting and a company setting (`scheduleType`, `userRating`, `chatBotType`,
 * `CheckMsgIsGroup`): one value, whichever route changes it. Both PUTs write both tables in one transaction;
 * the company setting is what the platform reads (`identity.getCompanySetting`), and `GET /settings` shows it.
 */
export const SHARED_SETTING_KEYS: ReadonlySet<string> = new Set(Object.keys(SETTING_DEFAULTS).filter((k) => has(COMPANY_SETTING_DEFAULTS, k)));

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

/** True when `zone` is an IANA time zone name this runtime knows (`America/Sao_Paulo`, `UTC`). */
export function isTimeZone(zone: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/.test(zone)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * Throws 400 ERR_VALIDATION unless `value` is allowed (`allowed` empty: any string up to 5,000 chars;
 * `timeZone`: an IANA time zone name).
 */
function assertValue(key: string, value: string, allowed: string[]): void {
  if (value.length > SETTING_VALUE_MAX) throw new AppError('ERR_VALIDATION', `${key} is longer than ${SETTING_VALUE_MAX} characters`);
  if (key === 'timeZone' && !isTimeZone(value)) throw new AppError('ERR_VALIDATION', 'timeZone must be an IANA time zone such as America/Sao_Paulo');
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
type SettingsOut = Static<typeof SettingsObject>;
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
 *   `{action:'update', setting}` after the write. Keys that are company settings too (`SHARED_SETTING_KEYS`:
 *   scheduleType, userRating, chatBotType, CheckMsgIsGroup) change both, in one transaction.
 *
 * Company settings (table `company_settings`, shown as one object `{id, companyId, <key>: value, ...}` with
 * defaults filled in):
 * - `GET /companySettings/:companyId` and `GET /companySettings` (signed in) -> the object. The path id is
 *   ignored, as in the product family: a caller only ever sees its own company.
 * - `GET /companySettingOne?column=<key>` (signed in) -> `{<key>: value}`; 404 ERR_NO_SETTING_FOUND.
 * - `PUT /companySettings` `{column, data}` (admin) -> `{response: true, result: <object>}`. 404
 *   ERR_NO_SETTING_FOUND for an unknown column; 400 ERR_VALIDATION when `data` is not one of the key's
 *   `COMPANY_SETTING_VALUES`, or longer than 5,000 chars. Emits `company-{id}-settings`
 *   `{action:'update', setting: {key, value}}` after the write. A shared key also updates its legacy row.
 */
export async function settingsRoutes(app: PluginApp, deps: CoreDeps): Promise<void> {
  const { db, identity, realtime } = deps;

  /** The company-setting values of the shared keys that have a row (they win over the legacy rows). */
  const sharedValues = async (companyId: number, keys: string[]): Promise<Map<string, string>> => {
    const wanted = keys.filter((k) => SHARED_SETTING_KEYS.has(k));
    if (!wanted.length) return new Map();
    const rows: { key: string; value: string }[] = await db('companySettings').where({ companyId }).whereIn('key', wanted).select('key', 'value');
    return new Map(rows.map((r) => [r.key, r.value]));
  };

  const readLegacy = async (companyId: number): Promise<Setting[]> => {
    const rows: Setting[] = await db('settings').where({ companyId }).select('id', 'key', 'value', 'companyId', 'createdAt', 'updatedAt');
    const seen = new Set(rows.map((r) => r.key));
    const out = [...rows];
    for (const [key, value] of Object.entries(SETTING_DEFAULTS)) if (!seen.has(key)) out.push({ key, value, companyId });
    const shared = await sharedValues(companyId, out.map((r) => r.key));
    for (const r of out) if (shared.has(r.key)) r.value = shared.get(r.key)!;
    return out.sort((a, b) => a.key.localeCompare(b.key));
  };

  /** Upserts a company setting inside `trx`. */
  const writeCompanySetting = (trx: Knex.Transaction, companyId: number, key: string, value: string) =>
    trx('companySettings').insert({ companyId, key, value }).onConflict(['companyId', 'key']).merge({ value, updatedAt: trx.fn.now() });
  /** Upserts a legacy setting inside `trx` and returns its row. */
  const writeLegacy = async (trx: Knex.Transaction, companyId: number, key: string, value: string): Promise<Setting> => {
    const [row] = (await trx('settings')
      .insert({ companyId, key, value })
      .onConflict(['companyId', 'key'])
      .merge({ value, updatedAt: trx.fn.now() })
      .returning(['id', 'key', 'value', 'companyId', 'createdAt', 'updatedAt'])) as Setting[];
    return row;
  };

  app.get('/settings', {
    schema: { tags: ['settings'], summary: "The caller company's legacy key/value settings (defaults filled in)", response: { 200: Type.Array(Setting) } },
  }, async (req) => readLegacy(req.auth.companyId));

  app.get('/settings/:key', {
    schema: { tags: ['settings'], summary: 'One legacy setting', params: KeyParams, response: { 200: Setting } },
  }, async (req) => {
    const { key } = req.params;
    if (!has(SETTING_DEFAULTS, key)) throw new AppError('ERR_NO_SETTING_FOUND');
    const companyId = req.auth.companyId;
    const row = await db('settings').where({ companyId, key }).first('id', 'key', 'value', 'companyId', 'createdAt', 'updatedAt');
    const out: Setting = row ?? { key, value: SETTING_DEFAULTS[key], companyId };
    const shared = await sharedValues(companyId, [key]);
    if (shared.has(key)) out.value = shared.get(key)!;
    return out;
  });

  app.put('/settings/:key', {
    config: { role: 'admin' },
    schema: { tags: ['settings'], summary: 'Set a legacy setting (userCreation: super only)', params: KeyParams, body: SettingBody, response: { 200: Setting } },
  }, async (req) => {
    const { key } = req.params;
    const { value } = req.body;
    if (!has(SETTING_DEFAULTS, key)) throw new AppError('ERR_NO_SETTING_FOUND');
    if (SUPER_ONLY_SETTINGS.has(key) && !req.auth.super) throw new AppError('ERR_NO_PERMISSION');
    assertValue(key, value, legacySettingValues(key));
    const companyId = req.auth.companyId;
    const setting = await db.transaction(async (trx) => {
      if (SHARED_SETTING_KEYS.has(key)) await writeCompanySetting(trx, companyId, key, value);
      const before = await trx('settings').where({ companyId, key }).first('value');
      await deps.audit.record(trx, { req, entity: 'setting', entityId: key, action: 'update', before: { value: before?.value ?? SETTING_DEFAULTS[key] }, after: { value } });
      return writeLegacy(trx, companyId, key, value);
    });
    identity.invalidateSettings(companyId);
    realtime.emitToCompany(companyId, `company-${companyId}-settings`, { action: 'update', setting });
    return setting;
  });

  const readObject = { tags: ['settings'], summary: "The caller company's settings as one object (defaults filled in)", response: { 200: SettingsObject } };
  app.get('/companySettings', { schema: readObject }, async (req) => (await identity.companySettingsObject(req.auth.companyId)) as SettingsOut);
  app.get('/companySettings/:companyId', {
    schema: { ...readObject, params: CompanyIdParams, description: "The path id is ignored: the caller's company is always used." },
  }, async (req) => (await identity.companySettingsObject(req.auth.companyId)) as SettingsOut);

  app.get('/companySettingOne', {
    schema: {
      tags: ['settings'],
      summary: 'One company setting as a single-key object {<column>: value}',
      querystring: ColumnQuery,
      response: { 200: Type.Object({}, { additionalProperties: Type.String() }) },
    },
  }, async (req) => {
    const { column } = req.query;
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
    const { column, data } = req.body;
    if (!has(COMPANY_SETTING_DEFAULTS, column)) throw new AppError('ERR_NO_SETTING_FOUND');
    assertValue(column, data, COMPANY_SETTING_VALUES[column] ?? []);
    const companyId = req.auth.companyId;
    const previous = await identity.getCompanySetting(companyId, column);
    await db.transaction(async (trx) => {
      await deps.audit.record(trx, { req, entity: 'setting', entityId: column, action: 'update', before: { value: previous }, after: { value: data } });
      await writeCompanySetting(trx, companyId, column, data);
      if (SHARED_SETTING_KEYS.has(column)) await writeLegacy(trx, companyId, column, data);
    });
    identity.invalidateSettings(companyId);
    realtime.emitToCompany(companyId, `company-${companyId}-settings`, { action: 'update', setting: { key: column, value: data } });
    return { response: true, result: (await identity.companySettingsObject(companyId)) as SettingsOut };
  });
}
