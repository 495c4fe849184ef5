import type { FastifyRequest } from 'fastify';
import { AppError, errorResponses, IdParams, Nullable, Type, type AuditService, type PluginApp } from '@atendo/sdk';
import type { ContactStore } from '../services/contacts';
import { cleanNumber, maskContact } from '../services/numbers';
import {
  BlockBody,
  CONTACTS_LIST_MAX,
  CONTACTS_PAGE_SIZE,
  ContactIdParams,
  ContactLightSchema,
  ContactListItemSchema,
  ContactsListQuery,
  ContactsPageQuery,
  CreateContactBody,
  NumberParams,
  SyncTagsBody,
  UpdateContactBody,
} from '../schemas/contacts';
import { ContactDetailsSchema, ContactTagSchema } from '../contract';

export const errors = errorResponses(400, 401, 403, 404, 409, 413, 415);

/** Parses `contactTag` (a JSON array of tag ids; a bare id or "1,2" also work); 400 ERR_VALIDATION. */
export function parseTagIds(raw: string | undefined): number[] | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    v = raw.split(',').map((s) => s.trim());
  }
  const list = (Array.isArray(v) ? v : [v]).map((x) => (typeof x === 'string' && /^\d{1,10}$/.test(x) ? Number(x) : x));
  if (list.length > 200 || list.some((x) => !Number.isInteger(x) || (x as number) < 1 || (x as number) > 2147483647)) {
    throw new AppError('ERR_VALIDATION', 'contactTag must be a JSON array of tag ids');
  }
  return list.length ? (list as number[]) : undefined;
}

/**
 * A function applying the LGPD mask to contacts when the caller must not see numbers (profile user and
 * company setting lgpdHideNumber enabled); identity otherwise.
 */
export async function masker(store: ContactStore, req: FastifyRequest): Promise<<T extends { number: string; isGroup: boolean }>(c: T) => T> {
  if (!(await store.shouldMask(req.auth.companyId, req.auth))) return (c) => c;
  return (c) => maskContact(c);
}

/**
 * Contact routes (spec 2-tickets.md §2 "Contacts", §5, §6, §7 "Contacts and notes"; wire-shapes
 * "GET /contacts", "POST /contacts"). Every answer showing numbers is masked for callers of profile user
 * when lgpdHideNumber is enabled (groups never). All routes are for any signed-in user except DELETE.
 * - `GET /contacts`, `/contacts/` `?searchParam&pageNumber&contactTag&isGroup&channel` ->
 *   `{contacts: [Contact & {tags, tickets}], count, hasMore}`, 100 a page ordered by name.
 * - `GET /contacts/list?searchParam` -> `[{id, name, number, channel, isGroup}]` (at most 1000).
 * - `GET /contacts/profile/:number` -> `{contactId, urlPicture}`; an unknown number -> `{contactId: 0,
 *   urlPicture: null}` (wire-shapes: the client then creates the contact). A caller to whom numbers are
 *   masked gets `{contactId: 0, urlPicture: null}` for every number (existing or not: the answer must not
 *   reveal the digits the mask hides). At most `profileLookupsPerMinute` (CONTACTS_PROFILE_LOOKUPS_PER_MINUTE,
 *   default 30) a minute per user and company across the cluster: 429 ERR_TOO_MANY_REQUESTS past it.
 * - `GET /contacts/:id` -> Contact & {extraInfo, tags}; 404 ERR_NO_CONTACT_FOUND.
 * - `POST /contacts` {name 2..50, number 8..50, email?, disableBot?, acceptAudioMessage?, channel?,
 *   extraInfo? (<= 50), lgpdAcceptedAt?} -> 200 Contact & {extraInfo, tags}; 400 ERR_VALIDATION for a
 *   number that is not digits (after removing spaces, dashes, parentheses, dots, leading '+'); 409
 *   ERR_DUPLICATED_CONTACT.
 * - `PUT /contacts/:id` same fields, optional; `extraInfo` replaces the list -> Contact & {extraInfo, tags}.
 * - `DELETE /contacts/:id` (admin) -> `{message}`.
 * - `PUT /contacts/toggleDisableBot/:id`, `PUT /contacts/toggleAcceptAudio/:id` -> the contact (its
 *   `disableBot` / `acceptAudioMessage` is the new value).
 * - `PUT /contacts/block/:id` {active} -> the contact.
 * - `GET /contactTags/:contactId` -> `{tags}`.
 * - `POST /tags/sync` {contactId, tags: [{id}] | number[]} -> the contact with its new tags; 404
 *   ERR_NO_TAG_FOUND when a tag is not the company's (nothing changes).
 * Writes emit `company-{cid}-contact` {action:'create'|'update', contact} / {action:'delete', contactId}
 * after commit.
 */
export async function contactsRoutes(app: PluginApp, deps: { store: ContactStore; profileLookupsPerMinute?: number; audit?: AuditService }): Promise<void> {
  const { store } = deps;
  /** Records a contact change in the audit log (issue 34): changed field names only, never their values (personal data). */
  const audit = (req: FastifyRequest, id: number, action: string, before?: object | null, after?: object | null) =>
    deps.audit?.record({ req, entity: 'contact', entityId: id, action, before, after, personal: true });
  const details = async (companyId: number, id: number) => {
    const c = await store.get(companyId, id);
    if (!c) throw new AppError('ERR_NO_CONTACT_FOUND');
    return c;
  };

  for (const url of ['/contacts', '/contacts/']) {
    app.get(url, {
      schema: {
        tags: ['contacts'],
        summary: "A page of the company's contacts (100 a page, by name) with their tags",
        querystring: ContactsPageQuery,
        response: { 200: Type.Object({ contacts: Type.Array(ContactListItemSchema), count: Type.Integer(), hasMore: Type.Boolean() }), ...errors },
      },
    }, async (req) => {
      const q = req.query;
      const companyId = req.auth.companyId;
      const offset = ((q.pageNumber ?? 1) - 1) * CONTACTS_PAGE_SIZE;
      const masked = await store.shouldMask(companyId, req.auth);
      const filters = {
        searchParam: q.searchParam,
        exactNumber: masked,
        tagIds: parseTagIds(q.contactTag),
        isGroup: q.isGroup === undefined ? undefined : q.isGroup === 'true',
        channel: q.channel,
      };
      const mask = await masker(store, req);
      const { contacts, count } = await store.page(companyId, filters, offset, CONTACTS_PAGE_SIZE);
      return { contacts: contacts.map(mask), count, hasMore: count > offset + contacts.length };
    });
  }

  app.get('/contacts/list', {
    schema: { tags: ['contacts'], summary: 'Up to 1000 contacts (id, name, number, channel) for pickers', querystring: ContactsListQuery, response: { 200: Type.Array(ContactLightSchema), ...errors } },
  }, async (req) => {
    const masked = await store.shouldMask(req.auth.companyId, req.auth);
    const rows = await store.light(req.auth.companyId, req.query.searchParam, CONTACTS_LIST_MAX, { exactNumber: masked });
    return masked ? rows.map((c) => maskContact(c)) : rows;
  });

  app.get('/contacts/profile/:number', {
    config: {
      // Each answer tells whether a number is a contact (masked numbers could be guessed one by one): at
      // most profileLookupsPerMinute a minute per user and company, counted in PostgreSQL (all nodes).
      rateLimit: {
        max: deps.profileLookupsPerMinute ?? 30,
        timeWindow: '1 minute',
        keyGenerator: (req) => `contact-profile:${req.auth?.companyId}:${req.auth?.id ?? req.ip}`,
      },
    },
    schema: {
      tags: ['contacts'],
      summary: 'The contact id and picture for a number',
      params: NumberParams,
      response: { 200: Type.Object({ contactId: Type.Integer(), urlPicture: Nullable(Type.String()) }), ...errors },
    },
  }, async (req) => {
    // A viewer of masked numbers (profile user, lgpdHideNumber enabled) typed a full number: answering the
    // contact it belongs to would tell them the digits the mask hides (guessed one by one, even under the
    // rate limit). They get the unknown-number answer for every number, existing or not, without a lookup
    // (same answer, same work); an existing contact is found by its name instead.
    if (await store.shouldMask(req.auth.companyId, req.auth)) {
      if (!cleanNumber(req.params.number)) throw new AppError('ERR_VALIDATION', 'Invalid number format. Only numbers are allowed.');
      return { contactId: 0, urlPicture: null };
    }
    const row = await store.findByNumber(req.auth.companyId, req.params.number);
    // Unknown number: 200 with contactId 0, as the product family answers, so its client creates the contact.
    if (!row) return { contactId: 0, urlPicture: null };
    return { contactId: row.id as number, urlPicture: store.toContact(row).urlPicture };
  });

  app.get('/contacts/:id', {
    schema: { tags: ['contacts'], summary: 'One contact with extra info and tags', params: IdParams, response: { 200: ContactDetailsSchema, ...errors } },
  }, async (req) => {
    const mask = await masker(store, req);
    return mask(await details(req.auth.companyId, req.params.id));
  });

  app.post('/contacts', {
    schema: { tags: ['contacts'], summary: 'Create a contact', body: CreateContactBody, response: { 200: ContactDetailsSchema, ...errors } },
  }, async (req) => {
    const mask = await masker(store, req);
    return mask(await store.create(req.auth.companyId, req.body));
  });

  app.put('/contacts/:id', {
    schema: { tags: ['contacts'], summary: 'Update a contact (extraInfo, when given, replaces the list)', params: IdParams, body: UpdateContactBody, response: { 200: ContactDetailsSchema, ...errors } },
  }, async (req) => {
    const masked = await store.shouldMask(req.auth.companyId, req.auth);
    const before = await store.get(req.auth.companyId, req.params.id);
    const contact = await store.update(req.auth.companyId, req.params.id, req.body, { masked });
    await audit(req, contact.id, 'update', before, contact);
    return masked ? maskContact(contact) : contact;
  });

  app.delete('/contacts/:id', {
    config: { role: 'admin' },
    schema: { tags: ['contacts'], summary: 'Delete a contact', params: IdParams, response: { 200: Type.Object({ message: Type.String() }), ...errors } },
  }, async (req) => {
    await store.remove(req.auth.companyId, req.params.id);
    await audit(req, req.params.id, 'delete', null, null);
    return { message: 'Contact deleted' };
  });

  const flagRoute = (url: string, flag: 'disableBot' | 'acceptAudioMessage', summary: string) =>
    app.put(url, {
      schema: { tags: ['contacts'], summary, params: IdParams, response: { 200: ContactDetailsSchema, ...errors } },
    }, async (req) => {
      const mask = await masker(store, req);
      return mask(await store.setFlag(req.auth.companyId, req.params.id, flag));
    });
  flagRoute('/contacts/toggleDisableBot/:id', 'disableBot', "Flip the contact's bot switch");
  flagRoute('/contacts/toggleAcceptAudio/:id', 'acceptAudioMessage', 'Flip whether the contact may send audio');

  app.put('/contacts/block/:id', {
    schema: { tags: ['contacts'], summary: 'Block (active false) or unblock (active true) a contact', params: IdParams, body: BlockBody, response: { 200: ContactDetailsSchema, ...errors } },
  }, async (req) => {
    const mask = await masker(store, req);
    const contact = await store.setFlag(req.auth.companyId, req.params.id, 'active', req.body.active);
    await audit(req, contact.id, contact.active ? 'unblock' : 'block', { active: !contact.active }, { active: contact.active });
    return mask(contact);
  });

  app.get('/contactTags/:contactId', {
    schema: { tags: ['contacts'], summary: "A contact's tags", params: ContactIdParams, response: { 200: Type.Object({ tags: Type.Array(ContactTagSchema) }), ...errors } },
  }, async (req) => {
    const { contactId } = req.params;
    const companyId = req.auth.companyId;
    if (!(await store.getRow(companyId, contactId))) throw new AppError('ERR_NO_CONTACT_FOUND');
    return { tags: (await store.tagsOf(companyId, [contactId])).get(contactId) ?? [] };
  });

  app.post('/tags/sync', {
    schema: { tags: ['contacts'], summary: "Replace a contact's tags", body: SyncTagsBody, response: { 200: ContactDetailsSchema, ...errors } },
  }, async (req) => {
    const body = req.body;
    const ids = body.tags.map((t) => (typeof t === 'number' ? t : t.id));
    const mask = await masker(store, req);
    return mask(await store.syncTags(req.auth.companyId, body.contactId, ids));
  });
}
