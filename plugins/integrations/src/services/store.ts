import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { AppError, iso, page, type Realtime } from '@atendo/sdk';
import { BUILTIN_INTEGRATION_TYPES, INTEGRATION_LANGUAGES, queueIntegrationEvent, type IntegrationRecord, type IntegrationType, type QueueIntegration } from '../contract';
import type { IntegrationBody, ListIntegrationsQuery } from '../schemas/integrations';
import { checkUrl, type AllowList } from './safe-http';

const TABLE = 'integrationsQueueIntegrations';

/** A row with its secrets (for the handlers only). */
function toRecord(row: Record<string, unknown>): IntegrationRecord {
  return {
    id: row.id as number,
    companyId: row.companyId as number,
    type: String(row.type),
    name: String(row.name),
    projectName: String(row.projectName ?? ''),
    jsonContent: String(row.jsonContent ?? ''),
    language: String(row.language ?? ''),
    urlN8N: String(row.urlN8n ?? ''),
    typebotSlug: String(row.typebotSlug ?? ''),
    typebotExpires: Number(row.typebotExpires ?? 1),
    typebotDelayMessage: Number(row.typebotDelayMessage ?? 1000),
    typebotKeywordFinish: String(row.typebotKeywordFinish ?? ''),
    typebotKeywordRestart: String(row.typebotKeywordRestart ?? ''),
    typebotUnknownMessage: String(row.typebotUnknownMessage ?? ''),
    typebotRestartMessage: String(row.typebotRestartMessage ?? ''),
    secret: String(row.secret),
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

/** The public shape: no secret, no service-account JSON. */
export function toPublic(r: IntegrationRecord): QueueIntegration {
  const { secret, jsonContent, ...rest } = r;
  return { ...rest, jsonContent: '', hasJsonContent: jsonContent.length > 0, secretHint: secret ? `…${secret.slice(-4)}` : '' };
}

const trimOrEmpty = (v: string | null | undefined) => (v ?? '').trim();
const toInt = (v: number | string | null | undefined, dflt: number) => (v === null || v === undefined || v === '' ? dflt : Number(v));

/**
 * The company's queue integrations. Every method filters on `companyId`; events go out after the write.
 */
export class IntegrationStore {
  constructor(
    private readonly db: Knex,
    private readonly realtime: Realtime,
    private readonly pageSize: number,
    private readonly allow: AllowList,
    private readonly contributed: () => IntegrationType[],
  ) {}

  /** The types the CRUD accepts: the built-in ones and the contributed ones. */
  types(): string[] {
    return [...BUILTIN_INTEGRATION_TYPES, ...this.contributed().map((t) => t.type)];
  }

  async list(companyId: number, q: ListIntegrationsQuery): Promise<{ queueIntegrations: QueueIntegration[]; count: number; hasMore: boolean }> {
    const { offset, limit, hasMore } = page(q.pageNumber, this.pageSize);
    const base = this.db(TABLE).where({ companyId });
    const term = (q.searchParam ?? '').trim().toLowerCase();
    if (term) void base.whereRaw("lower(name) LIKE ? ESCAPE '\\'", [`%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`]);
    const [{ n }] = await base.clone().count({ n: '*' });
    const rows = await base.clone().orderBy('name', 'asc').orderBy('id', 'asc').offset(offset).limit(limit);
    const count = Number(n);
    return { queueIntegrations: rows.map((r) => toPublic(toRecord(r))), count, hasMore: hasMore(count, rows.length) };
  }

  /** One integration with its secrets, or undefined. */
  async record(companyId: number, id: number): Promise<IntegrationRecord | undefined> {
    const row = await this.db(TABLE).where({ companyId, id }).first();
    return row ? toRecord(row) : undefined;
  }

  /** The public shape; 404 ERR_NO_INTEGRATION_FOUND. */
  async getOr404(companyId: number, id: number): Promise<QueueIntegration> {
    const r = await this.record(companyId, id);
    if (!r) throw new AppError('ERR_NO_INTEGRATION_FOUND');
    return toPublic(r);
  }

  /** Checks a body by type and returns the columns to write (see `IntegrationBody`). */
  private columns(body: IntegrationBody, existing?: IntegrationRecord): Record<string, unknown> {
    const type = body.type.trim();
    if (!this.types().includes(type)) throw new AppError('ERR_VALIDATION', `type must be one of ${this.types().join(', ')}`);
    const name = trimOrEmpty(body.name);
    if (!name) throw new AppError('ERR_VALIDATION', 'name is required');
    const cols: Record<string, unknown> = {
      type,
      name,
      projectName: type === 'dialogflow' ? trimOrEmpty(body.projectName) : name,
      language: trimOrEmpty(body.language),
      urlN8n: trimOrEmpty(body.urlN8N),
      typebotSlug: trimOrEmpty(body.typebotSlug),
      typebotExpires: toInt(body.typebotExpires, 1),
      typebotDelayMessage: toInt(body.typebotDelayMessage, 1000),
      typebotKeywordFinish: trimOrEmpty(body.typebotKeywordFinish),
      typebotKeywordRestart: trimOrEmpty(body.typebotKeywordRestart),
      typebotUnknownMessage: body.typebotUnknownMessage ?? '',
      typebotRestartMessage: body.typebotRestartMessage ?? '',
    };
    if (['n8n', 'webhook', 'typebot'].includes(type)) {
      if (!cols.urlN8n) throw new AppError('ERR_VALIDATION', 'urlN8N is required');
      checkUrl(String(cols.urlN8n), this.allow);
    } else if (cols.urlN8n) checkUrl(String(cols.urlN8n), this.allow);
    if (type === 'typebot' && !cols.typebotSlug) throw new AppError('ERR_VALIDATION', 'typebotSlug is required');
    if (type === 'typebot' && !/^[A-Za-z0-9._~-]+$/.test(String(cols.typebotSlug))) throw new AppError('ERR_VALIDATION', 'typebotSlug must be a slug');
    if (type === 'dialogflow') {
      if (!(INTEGRATION_LANGUAGES as readonly string[]).includes(String(cols.language))) throw new AppError('ERR_VALIDATION', `language must be one of ${INTEGRATION_LANGUAGES.join(', ')}`);
      const json = trimOrEmpty(body.jsonContent);
      if (json) {
        let parsed: Record<string, unknown>;
        try {
          parsed = JSON.parse(json);
        } catch {
          throw new AppError('ERR_VALIDATION', 'jsonContent must be a service-account JSON');
        }
        if (typeof parsed?.client_email !== 'string' || typeof parsed?.private_key !== 'string') throw new AppError('ERR_VALIDATION', 'jsonContent must be a service-account JSON (client_email, private_key)');
        cols.jsonContent = json;
      } else if (!existing?.jsonContent) throw new AppError('ERR_VALIDATION', 'jsonContent is required');
      if (!cols.projectName) throw new AppError('ERR_VALIDATION', 'projectName is required');
    }
    const contributed = this.contributed().find((t) => t.type === type);
    contributed?.validate?.(body as Record<string, unknown>);
    if (body.secret !== undefined && body.secret !== null && body.secret !== '') {
      if (body.secret.length < 16) throw new AppError('ERR_VALIDATION', 'secret must have at least 16 characters');
      cols.secret = body.secret;
    }
    return cols;
  }

  /** Creates an integration (admin); the answer carries the generated `secret` in full, once. */
  async create(companyId: number, body: IntegrationBody): Promise<QueueIntegration> {
    const cols = this.columns(body);
    const generated = cols.secret ? undefined : randomBytes(24).toString('base64url');
    const [row] = await this.db(TABLE).insert({ companyId, ...cols, secret: cols.secret ?? generated }).returning('*');
    const out = toPublic(toRecord(row));
    this.realtime.emitToCompany(companyId, queueIntegrationEvent(companyId), { action: 'create', queueIntegration: out });
    return generated ? { ...out, secret: generated } : out;
  }

  /** Updates an integration (admin); 404 ERR_NO_INTEGRATION_FOUND. */
  async update(companyId: number, id: number, body: IntegrationBody): Promise<QueueIntegration> {
    const existing = await this.record(companyId, id);
    if (!existing) throw new AppError('ERR_NO_INTEGRATION_FOUND');
    const cols = this.columns(body, existing);
    const [row] = await this.db(TABLE).where({ companyId, id }).update({ ...cols, updatedAt: this.db.fn.now() }).returning('*');
    if (!row) throw new AppError('ERR_NO_INTEGRATION_FOUND');
    const out = toPublic(toRecord(row));
    this.realtime.emitToCompany(companyId, queueIntegrationEvent(companyId), { action: 'update', queueIntegration: out });
    return out;
  }

  /** Deletes an integration (admin); 404 ERR_NO_INTEGRATION_FOUND. Tickets it handled go to humans at their next message. */
  async remove(companyId: number, id: number): Promise<void> {
    const n = await this.db(TABLE).where({ companyId, id }).del();
    if (!n) throw new AppError('ERR_NO_INTEGRATION_FOUND');
    this.realtime.emitToCompany(companyId, queueIntegrationEvent(companyId), { action: 'delete', integrationId: id });
  }
}
