import type {} from '@fastify/multipart';
import { AppError, errorResponses, IdParams, ListQuery, masksNumbersFor, Type, type AuditService, type AuthUser, type IdentityService, type PluginApp } from '@atendo/sdk';
import { CampaignSchema, CampaignSettingRowSchema, ContactListItemSchema, ContactListSchema, ImportProgressSchema, SHEET_EXTENSIONS, SHEET_MAX_BYTES } from '../contract';
import {
  CampaignGetQuery,
  CampaignPage,
  ContactListBody,
  ContactListPage,
  CreateCampaignBody,
  CreateItemBody,
  ItemPage,
  ItemsQuery,
  MessageAnswer,
  SettingsBody,
  UpdateCampaignBody,
  UpdateItemBody,
} from '../schemas';
import type { CampaignStore } from '../services/campaigns';
import type { ListStore } from '../services/lists';
import type { SettingsStore } from '../services/settings';
import { exampleSheet } from '../services/sheet';

const errors = errorResponses(400, 401, 403, 404);

/**
 * The campaigns plugin's routes (spec 3-campaigns-and-tools.md §7 "Contact lists", "Contact list items",
 * "Campaigns", "Campaign settings"). Every route needs a signed-in user of a company whose plan has
 * `useCampaigns` (403 ERR_FEATURE_NOT_IN_PLAN otherwise) and reads only the caller's company (another
 * company's ids are 404). Roles: any user, except `DELETE /contact-list-items/{id}` and `DELETE
 * /contact-lists/{id}` (supervisor or admin: the contacts-page:deleteContact permission, one rule for one
 * item and for the whole list) and `POST /campaign-settings` (admin). See README.md for the
 * answers and events.
 */
export async function campaignRoutes(app: PluginApp, d: { lists: ListStore; campaigns: CampaignStore; settings: SettingsStore; identity: IdentityService; audit?: AuditService }): Promise<void> {
  /** Whether the caller sees masked numbers (lgpdHideNumber for a plain user): its number search is then exact. */
  const seesMasked = async (auth: AuthUser) => masksNumbersFor(auth) && (await d.identity.getCompanySetting(auth.companyId, 'lgpdHideNumber')) === 'enabled';
  const { lists, campaigns, settings } = d;

  // ---------------------------------------------------------------------------------------------
  // Contact lists

  for (const url of ['/contact-lists', '/contact-lists/']) {
    app.get(url, {
      schema: { tags: ['campaigns'], summary: 'Contact lists, 20 a page by name, with their item counts', querystring: ListQuery, response: { 200: ContactListPage, ...errors } },
    }, (req) => lists.listLists(req.auth.companyId, req.query));
    app.post(url, {
      schema: { tags: ['campaigns'], summary: 'Create a contact list (name 2..50)', body: ContactListBody, response: { 200: ContactListSchema, ...errors } },
    }, (req) => lists.createList(req.auth.companyId, req.body.name));
  }

  app.get('/contact-lists/list', {
    schema: { tags: ['campaigns'], summary: 'Every contact list of the company (at most 1,000), by name', response: { 200: Type.Array(ContactListSchema), ...errors } },
  }, (req) => lists.allLists(req.auth.companyId));

  app.get('/contact-lists/example', {
    schema: {
      tags: ['campaigns'],
      summary: 'The example import sheet (.xlsx: name, number, email)',
      produces: ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
      response: { 200: Type.Unsafe<Buffer>({ type: 'string', format: 'binary' }), ...errors },
    },
  }, async (_req, reply) =>
    reply
      .header('content-type', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet')
      .header('content-disposition', 'attachment; filename="contact-list-example.xlsx"')
      .send(exampleSheet()),
  );

  app.get('/contact-lists/:id', {
    schema: { tags: ['campaigns'], summary: 'One contact list', params: IdParams, response: { 200: ContactListSchema, ...errors } },
  }, (req) => lists.getList(req.auth.companyId, req.params.id));

  app.put('/contact-lists/:id', {
    schema: { tags: ['campaigns'], summary: 'Rename a contact list', params: IdParams, body: ContactListBody, response: { 200: ContactListSchema, ...errors } },
  }, (req) => lists.updateList(req.auth.companyId, req.params.id, req.body.name));

  // Deleting a list deletes its items: the rule of deleting one item (contacts-page:deleteContact: supervisor
  // or admin), not a wider one.
  app.delete('/contact-lists/:id', {
    config: { role: 'supervisor' },
    schema: { tags: ['campaigns'], summary: 'Delete a contact list and its items', params: IdParams, response: { 200: MessageAnswer, ...errors } },
  }, async (req) => {
    await lists.deleteList(req.auth.companyId, req.params.id);
    return { message: 'Contact list deleted' };
  });

  app.post('/contact-lists/:id/upload', {
    schema: {
      tags: ['campaigns'],
      summary: 'Import items from an .xls, .xlsx or .csv sheet (multipart field "file"; columns name, number, email); progress on company-{id}-ContactListItem-{listId}',
      consumes: ['multipart/form-data'],
      params: IdParams,
      response: { 200: ImportProgressSchema, ...errorResponses(413, 415), ...errors },
    },
  }, async (req) => {
    if (!req.isMultipart()) throw new AppError('ERR_UNSUPPORTED_MEDIA_TYPE', 'Send the spreadsheet as multipart/form-data');
    const part = await req.file({ limits: { fileSize: SHEET_MAX_BYTES, files: 1 } });
    if (!part || part.fieldname !== 'file') {
      part?.file.resume();
      throw new AppError('ERR_VALIDATION', 'Send the spreadsheet in the multipart field "file"');
    }
    const name = (part.filename ?? '').toLowerCase();
    if (!SHEET_EXTENSIONS.some((ext) => name.endsWith(ext))) {
      part.file.resume();
      throw new AppError('ERR_UPLOAD_TYPE', 'Only .xls, .xlsx and .csv spreadsheets can be imported');
    }
    let buf: Buffer;
    try {
      buf = await part.toBuffer();
    } catch (err) {
      if ((err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw new AppError('ERR_PAYLOAD_TOO_LARGE', `The spreadsheet is larger than ${SHEET_MAX_BYTES / 1024 / 1024} MiB`);
      throw err;
    }
    if (part.file.truncated) throw new AppError('ERR_PAYLOAD_TOO_LARGE', `The spreadsheet is larger than ${SHEET_MAX_BYTES / 1024 / 1024} MiB`);
    return lists.importSheet(req.auth.companyId, req.params.id, buf, part.filename);
  });

  // ---------------------------------------------------------------------------------------------
  // Contact list items

  for (const url of ['/contact-list-items', '/contact-list-items/']) {
    app.get(url, {
      schema: { tags: ['campaigns'], summary: "A list's items, 20 a page by name (search: name or number)", querystring: ItemsQuery, response: { 200: ItemPage, ...errors } },
    }, async (req) => lists.listItems(req.auth.companyId, req.query, { exactNumber: await seesMasked(req.auth) }));
    app.post(url, {
      schema: { tags: ['campaigns'], summary: 'Add an item to a contact list', body: CreateItemBody, response: { 200: ContactListItemSchema, ...errorResponses(409), ...errors } },
    }, (req) => lists.createItem(req.auth.companyId, { ...req.body, contactListId: Number(req.body.contactListId) }));
  }

  app.get('/contact-list-items/:id', {
    schema: { tags: ['campaigns'], summary: 'One contact list item', params: IdParams, response: { 200: ContactListItemSchema, ...errors } },
  }, (req) => lists.getItem(req.auth.companyId, req.params.id));

  app.put('/contact-list-items/:id', {
    schema: { tags: ['campaigns'], summary: 'Change a contact list item', params: IdParams, body: UpdateItemBody, response: { 200: ContactListItemSchema, ...errorResponses(409), ...errors } },
  }, (req) => lists.updateItem(req.auth.companyId, req.params.id, req.body));

  app.delete('/contact-list-items/:id', {
    config: { role: 'supervisor' },
    schema: { tags: ['campaigns'], summary: 'Delete a contact list item (supervisors and admins)', params: IdParams, response: { 200: MessageAnswer, ...errors } },
  }, async (req) => {
    await lists.deleteItem(req.auth.companyId, req.params.id);
    return { message: 'Contact list item deleted' };
  });

  // ---------------------------------------------------------------------------------------------
  // Campaigns

  for (const url of ['/campaigns', '/campaigns/']) {
    app.get(url, {
      schema: { tags: ['campaigns'], summary: 'Campaigns, 20 a page by name', querystring: ListQuery, response: { 200: CampaignPage, ...errors } },
    }, (req) => campaigns.list(req.auth.companyId, req.query));
    app.post(url, {
      schema: { tags: ['campaigns'], summary: 'Create a campaign (INATIVA, or PROGRAMADA with a scheduledAt)', body: CreateCampaignBody, response: { 200: CampaignSchema, ...errors } },
    }, async (req) => {
      const created = await campaigns.create(req.auth.companyId, req.body);
      await d.audit?.record({ req, entity: 'campaign', entityId: created.id, action: 'create', after: created });
      return created;
    });
  }

  app.get('/campaigns/:id', {
    schema: { tags: ['campaigns'], summary: 'One campaign with its counts (shipping=true adds the recipients)', params: IdParams, querystring: CampaignGetQuery, response: { 200: CampaignSchema, ...errors } },
  }, (req) => campaigns.get(req.auth.companyId, req.params.id, { shipping: req.query.shipping !== false }));

  app.put('/campaigns/:id', {
    schema: { tags: ['campaigns'], summary: 'Change a campaign (see the edit rule)', params: IdParams, body: UpdateCampaignBody, response: { 200: CampaignSchema, ...errors } },
  }, async (req) => {
    const before = await campaigns.get(req.auth.companyId, req.params.id, { shipping: false });
    const after = await campaigns.update(req.auth.companyId, req.params.id, req.body);
    await d.audit?.record({ req, entity: 'campaign', entityId: req.params.id, action: 'update', before: before, after: after });
    return after;
  });

  app.delete('/campaigns/:id', {
    schema: { tags: ['campaigns'], summary: 'Delete a campaign, its recipients and media', params: IdParams, response: { 200: MessageAnswer, ...errors } },
  }, async (req) => {
    await campaigns.remove(req.auth.companyId, req.params.id);
    await d.audit?.record({ req, entity: 'campaign', entityId: req.params.id, action: 'delete' });
    return { message: 'Campaign deleted' };
  });

  app.post('/campaigns/:id/media-upload', {
    schema: {
      tags: ['campaigns'],
      summary: 'Attach a file (multipart "file": image, audio, video or document, 16 MiB), replacing the previous one',
      consumes: ['multipart/form-data'],
      params: IdParams,
      response: { 200: CampaignSchema, ...errorResponses(413, 415), ...errors },
    },
  }, async (req) => {
    if (!req.isMultipart()) throw new AppError('ERR_UNSUPPORTED_MEDIA_TYPE', 'Send the file as multipart/form-data');
    const c = await campaigns.setMedia(req.auth.companyId, req.params.id, () => req.file());
    await d.audit?.record({ req, entity: 'campaign', entityId: req.params.id, action: 'update', after: { mediaName: c.mediaName } });
    return c;
  });

  app.delete('/campaigns/:id/media-upload', {
    schema: { tags: ['campaigns'], summary: "Remove the campaign's file", params: IdParams, response: { 200: CampaignSchema, ...errors } },
  }, async (req) => {
    const c = await campaigns.clearMedia(req.auth.companyId, req.params.id);
    await d.audit?.record({ req, entity: 'campaign', entityId: req.params.id, action: 'update', after: { mediaName: null } });
    return c;
  });

  app.post('/campaigns/:id/cancel', {
    schema: { tags: ['campaigns'], summary: 'Stop a running campaign (EM_ANDAMENTO -> CANCELADA)', params: IdParams, response: { 200: CampaignSchema, ...errors } },
  }, async (req) => {
    const c = await campaigns.cancel(req.auth.companyId, req.params.id);
    await d.audit?.record({ req, entity: 'campaign', entityId: req.params.id, action: 'cancel', after: { status: c.status } });
    return c;
  });

  app.post('/campaigns/:id/restart', {
    schema: { tags: ['campaigns'], summary: 'Continue a cancelled campaign where it stopped (CANCELADA -> EM_ANDAMENTO)', params: IdParams, response: { 200: CampaignSchema, ...errors } },
  }, async (req) => {
    const c = await campaigns.restart(req.auth.companyId, req.params.id);
    await d.audit?.record({ req, entity: 'campaign', entityId: req.params.id, action: 'restart', after: { status: c.status } });
    return c;
  });

  // ---------------------------------------------------------------------------------------------
  // Settings

  for (const url of ['/campaign-settings', '/campaign-settings/']) {
    app.get(url, {
      schema: { tags: ['campaigns'], summary: 'The campaign settings: [{key, value (JSON text)}]', response: { 200: Type.Array(CampaignSettingRowSchema), ...errors } },
    }, (req) => settings.rows(req.auth.companyId));
    app.post(url, {
      config: { role: 'admin' },
      schema: { tags: ['campaigns'], summary: 'Save the campaign settings ({settings: {messageInterval, longerIntervalAfter, greaterInterval, variables}})', body: SettingsBody, response: { 200: Type.Array(CampaignSettingRowSchema), ...errors } },
    }, async (req) => {
      const companyId = req.auth.companyId;
      const parse = (v: string): unknown => {
        try {
          return JSON.parse(v);
        } catch {
          return v;
        }
      };
      const values = (rows: { key: string; value: string }[]) => Object.fromEntries(rows.map((r) => [r.key, parse(r.value)]));
      const before = values(await settings.rows(companyId));
      const saved = await settings.save(companyId, { ...req.body.settings, variables: req.body.settings.variables?.map((v) => ({ key: v.key, value: v.value ?? '' })) });
      // Issue 34: settings are audited (the keys that changed, before and after).
      await d.audit?.record({ req, entity: 'setting', entityId: 'campaigns', action: 'update', before, after: values(saved) });
      return saved;
    });
  }
}
