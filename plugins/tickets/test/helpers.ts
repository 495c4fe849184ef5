/**
 * Shared test setup of the tickets plugin (used by every test file of plugins/tickets; extend it
 * additively). Builds a kernel with the tickets plugin and the plugins it depends on, and creates tenant
 * fixtures (queues, users with queues, connections, contacts, tickets, settings) directly in the database,
 * so tests of one route do not depend on the routes of another plugin.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Socket } from 'socket.io-client';
import { createTestKernel, type TestKernel, type TestUser } from '@atendo/testing';
import type { PluginDefinition } from '@atendo/sdk';
import queuesPlugin from '@atendo/plugin-queues';
import tagsPlugin from '@atendo/plugin-tags';
import contactsPlugin from '@atendo/plugin-contacts';
import connectionsPlugin from '@atendo/plugin-connections';
import ticketsPlugin from '../src';
import type { TicketRow, TicketStatus } from '../src/model';
import { buildDeps, type TicketsDeps } from '../src/services/deps';

/** The plugins a tickets kernel loads, in dependency order. */
export const TICKETS_PLUGINS: PluginDefinition[] = [queuesPlugin, tagsPlugin, contactsPlugin, connectionsPlugin, ticketsPlugin] as PluginDefinition[];

/** A test kernel with the tickets plugin and its dependencies. */
export function ticketsKernel(opts: { env?: Record<string, string> } = {}): Promise<TestKernel> {
  return createTestKernel({ plugins: TICKETS_PLUGINS, env: opts.env });
}

let seq = 0;
const uniq = () => `${Date.now().toString(36)}${(seq++).toString(36)}${randomBytes(2).toString('hex')}`;

export interface QueueFixture {
  id: number;
  name: string;
  color: string;
}

export interface ConnectionFixture {
  id: number;
  name: string;
  channel: string;
  isDefault: boolean;
}

export interface ContactFixture {
  id: number;
  name: string;
  number: string;
  isGroup: boolean;
}

/** Creates a queue of `companyId` (unique name and colour). */
export async function createQueue(k: TestKernel, companyId: number, o: { name?: string; color?: string } = {}): Promise<QueueFixture> {
  const [row] = await k.db('queues')
    .insert({ companyId, name: o.name ?? `Queue ${uniq()}`, color: o.color ?? `#${randomBytes(3).toString('hex')}` })
    .returning(['id', 'name', 'color']);
  return row;
}

/** Adds `userId` to the given queues of `companyId`. */
export async function addUserToQueues(k: TestKernel, companyId: number, userId: number, queueIds: number[]): Promise<void> {
  if (!queueIds.length) return;
  await k.db('userQueues').insert(queueIds.map((queueId) => ({ userId, queueId, companyId }))).onConflict(['userId', 'queueId']).ignore();
}

/** Creates a user of `companyId` serving `queueIds`, with optional user flags (allTicket, allowGroup, whatsappId, farewellMessage, name). */
export async function createAgent(
  k: TestKernel,
  companyId: number,
  o: { queueIds?: number[]; profile?: 'admin' | 'user' | 'supervisor'; name?: string; allTicket?: 'enable' | 'disable'; allowGroup?: boolean; whatsappId?: number | null; farewellMessage?: string | null } = {},
): Promise<TestUser & { name: string }> {
  const name = o.name ?? `Agent ${uniq()}`;
  const u = await k.createUser(companyId, { profile: o.profile ?? 'user', name });
  const patch: Record<string, unknown> = {};
  if (o.allTicket !== undefined) patch.allTicket = o.allTicket;
  if (o.allowGroup !== undefined) patch.allowGroup = o.allowGroup;
  if (o.whatsappId !== undefined) patch.whatsappId = o.whatsappId;
  if (o.farewellMessage !== undefined) patch.farewellMessage = o.farewellMessage;
  if (Object.keys(patch).length) await k.db('users').where({ id: u.id }).update(patch);
  await addUserToQueues(k, companyId, u.id, o.queueIds ?? []);
  return { ...u, name };
}

/** Creates a connection ("whatsapp") of `companyId`; `isDefault` false unless asked. */
export async function createConnection(
  k: TestKernel,
  companyId: number,
  o: { name?: string; channel?: string; isDefault?: boolean; status?: string; groupAsTicket?: 'enabled' | 'disabled'; complationMessage?: string | null; greetingMessage?: string | null; timeCreateNewTicket?: number; number?: string } = {},
): Promise<ConnectionFixture> {
  const [row] = await k.db('whatsapps')
    .insert({
      companyId,
      name: o.name ?? `Conn ${uniq()}`,
      channel: o.channel ?? 'whatsapp',
      isDefault: o.isDefault ?? false,
      status: o.status ?? 'CONNECTED',
      number: o.number ?? '5511900000000',
      groupAsTicket: o.groupAsTicket ?? 'disabled',
      complationMessage: o.complationMessage ?? null,
      greetingMessage: o.greetingMessage ?? null,
      timeCreateNewTicket: o.timeCreateNewTicket ?? 0,
      token: `tok${uniq()}${randomBytes(8).toString('hex')}`,
    })
    .returning(['id', 'name', 'channel', 'isDefault']);
  return row;
}

/** Creates a contact of `companyId` (a unique Brazilian-looking number unless given). */
export async function createContact(k: TestKernel, companyId: number, o: { name?: string; number?: string; isGroup?: boolean; channel?: string } = {}): Promise<ContactFixture> {
  const number = o.number ?? `55119${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}${seq++ % 10}`;
  const [row] = await k.db('contacts')
    .insert({ companyId, name: o.name ?? `Contact ${uniq()}`, number, isGroup: o.isGroup ?? false, channel: o.channel ?? 'whatsapp' })
    .returning(['id', 'name', 'number', 'isGroup']);
  return row;
}

/** Inserts a ticket directly (the state an inbound message would leave): default status 'pending', no user. */
export async function insertTicket(
  k: TestKernel,
  companyId: number,
  o: { contactId: number; whatsappId: number | null; queueId?: number | null; userId?: number | null; status?: TicketStatus; isGroup?: boolean; channel?: string; unreadMessages?: number; updatedAt?: Date },
): Promise<TicketRow> {
  const [row] = await k.db('tickets')
    .insert({
      uuid: randomUUID(),
      companyId,
      contactId: o.contactId,
      whatsappId: o.whatsappId,
      queueId: o.queueId ?? null,
      userId: o.userId ?? null,
      status: o.status ?? 'pending',
      isGroup: o.isGroup ?? false,
      channel: o.channel ?? 'whatsapp',
      unreadMessages: o.unreadMessages ?? 0,
      ...(o.status === 'closed' ? { closedAt: new Date() } : {}),
      ...(o.updatedAt ? { updatedAt: o.updatedAt } : {}),
    })
    .returning('*');
  return row;
}

/** Sets a company setting (see COMPANY_SETTING_DEFAULTS in the kernel). */
export async function setCompanySetting(k: TestKernel, companyId: number, key: string, value: string): Promise<void> {
  await k.db('companySettings').insert({ companyId, key, value }).onConflict(['companyId', 'key']).merge({ value });
  // A direct write: the kernel's settings cache is told, as the settings routes do.
  k.identity.invalidateSettings(companyId);
}

/** Links a tag to a contact (contact_tags). */
export async function tagContact(k: TestKernel, companyId: number, contactId: number, tagId: number): Promise<void> {
  await k.db('contactTags').insert({ companyId, contactId, tagId }).onConflict(['contactId', 'tagId']).ignore();
}

/** Creates a tag of `companyId` (`kanban` 0 unless asked). */
export async function createTag(k: TestKernel, companyId: number, o: { name?: string; color?: string; kanban?: 0 | 1 } = {}): Promise<{ id: number; name: string; color: string }> {
  const [row] = await k.db('tags')
    .insert({ companyId, name: o.name ?? `Tag ${uniq()}`, color: o.color ?? '#A4CCCC', kanban: o.kanban ?? 0 })
    .returning(['id', 'name', 'color']);
  return row;
}

/**
 * A ready tenant: a company with its admin, two queues (A and B), a plain user in each queue
 * (`userA`, `userB`), a default connection and a second connection, one contact and one group contact.
 */
export interface Tenant {
  companyId: number;
  admin: TestUser;
  queueA: QueueFixture;
  queueB: QueueFixture;
  userA: TestUser & { name: string };
  userB: TestUser & { name: string };
  conn: ConnectionFixture;
  conn2: ConnectionFixture;
  contact: ContactFixture;
  group: ContactFixture;
}

/** Creates a `Tenant` (see its docstring). */
export async function createTenant(k: TestKernel, o: { name?: string } = {}): Promise<Tenant> {
  const { companyId, admin } = await k.createCompany({ name: o.name });
  const queueA = await createQueue(k, companyId, { name: `Queue A ${uniq()}` });
  const queueB = await createQueue(k, companyId, { name: `Queue B ${uniq()}` });
  const userA = await createAgent(k, companyId, { queueIds: [queueA.id], name: `Alice ${uniq()}` });
  const userB = await createAgent(k, companyId, { queueIds: [queueB.id], name: `Bruno ${uniq()}` });
  const conn = await createConnection(k, companyId, { isDefault: true });
  const conn2 = await createConnection(k, companyId);
  const contact = await createContact(k, companyId, { name: 'Maria Silva' });
  const group = await createContact(k, companyId, { name: 'Grupo Vendas', number: `1203630${uniq().replace(/\D/g, '').slice(0, 8).padEnd(8, '7')}`, isGroup: true });
  return { companyId, admin, queueA, queueB, userA, userB, conn, conn2, contact, group };
}

/** Ticket-log entry types of a ticket, oldest first. */
export async function logTypes(k: TestKernel, ticketId: number): Promise<string[]> {
  const rows: { type: string }[] = await k.db('ticketLogs').where({ ticketId }).orderBy([{ column: 'createdAt' }, { column: 'id' }]).select('type');
  return rows.map((r) => r.type);
}

/** Resolves with every payload of `event` on `socket` matching `pred` within `ms`. */
export function eventsMatching<T = Record<string, unknown>>(socket: Socket, event: string, pred: (p: T) => boolean, ms = 600): Promise<T[]> {
  const got: T[] = [];
  const on = (p: T) => {
    if (pred(p)) got.push(p);
  };
  socket.on(event, on);
  return new Promise((resolve) =>
    setTimeout(() => {
      socket.off(event, on);
      resolve(got);
    }, ms),
  );
}

/**
 * Inserts a message directly (an inbound message by default: fromMe false, unread, contactId set by the
 * caller). `createdAt` orders the conversation. Returns the row (ids as numbers).
 */
export async function insertMessage(
  k: TestKernel,
  companyId: number,
  o: {
    ticketId: number;
    body?: string;
    fromMe?: boolean;
    read?: boolean;
    contactId?: number | null;
    userId?: number | null;
    wid?: string | null;
    ack?: number;
    mediaType?: string;
    mediaPath?: string | null;
    mediaName?: string | null;
    isPrivate?: boolean;
    createdAt?: Date;
  },
): Promise<import('../src/model').MessageRow> {
  const [row] = await k.db('messages')
    .insert({
      companyId,
      ticketId: o.ticketId,
      body: o.body ?? 'Olá',
      fromMe: o.fromMe ?? false,
      read: o.read ?? false,
      contactId: o.contactId ?? null,
      userId: o.userId ?? null,
      wid: o.wid === undefined ? `WID${uniq()}`.toUpperCase() : o.wid,
      ack: o.ack ?? 0,
      mediaType: o.mediaType ?? 'conversation',
      mediaPath: o.mediaPath ?? null,
      mediaName: o.mediaName ?? null,
      isPrivate: o.isPrivate ?? false,
      ...(o.createdAt ? { createdAt: o.createdAt, updatedAt: o.createdAt } : {}),
    })
    .returning('*');
  return { ...row, id: Number(row.id) };
}

/** The tickets plugin's service dependencies on a test kernel (for calling services and emits directly). */
export function ticketsDeps(k: TestKernel): TicketsDeps {
  return buildDeps({ db: k.db, bus: k.bus, realtime: k.realtime, identity: k.identity, uploads: undefined as never, log: k.app.log, services: k.services });
}

/** Creates `n` contacts of `companyId` in one insert (names `${prefix} 1..n`, unique numbers), in order. */
export async function bulkContacts(k: TestKernel, companyId: number, n: number, prefix = 'Bulk'): Promise<ContactFixture[]> {
  const tag = `${Date.now() % 1e6}${seq++ % 100}`.padStart(8, '0').slice(-8);
  const rows = Array.from({ length: n }, (_, i) => ({ companyId, name: `${prefix} ${i + 1}`, number: `5521${tag}${String(i).padStart(4, '0')}`, isGroup: false, channel: 'whatsapp' }));
  const out: ContactFixture[] = await k.db('contacts').insert(rows).returning(['id', 'name', 'number', 'isGroup']);
  return out.sort((a, b) => a.id - b.id);
}
