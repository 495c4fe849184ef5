import { join } from 'node:path';
import type { CountryCode } from 'libphonenumber-js/max';
import { definePlugin, Type } from '@atendo/sdk';
import { tagCounters, tagsService } from '@atendo/plugin-tags/contract';
import { contactDecorators, contactMergers, contactsService, errors } from './contract';
import { ContactStore } from './services/contacts';
import { ContactImports } from './services/import';
import { ContactMerges } from './services/merge';
import { contactsRoutes } from './routes/contacts';
import { importExportRoutes } from './routes/import-export';
import { mergeRoutes } from './routes/merge';

/** Config (env `CONTACTS_DEFAULT_COUNTRY`): the country of numbers typed without a country code. */
const ConfigSchema = Type.Object({
  defaultCountry: Type.String({ pattern: '^[A-Z]{2}$', default: 'BR' }),
  /** `GET /contacts/profile/:number` lookups a user may make a minute (per user and company, all nodes: 429 past it). */
  profileLookupsPerMinute: Type.Integer({ minimum: 1, maximum: 100000, default: 30 }),
});

/**
 * The contacts plugin (spec 2-tickets.md §2 "Contacts", §3 "Contact", §6 LGPD masking, §7 "Contacts and
 * notes"): owns `contacts`, `contact_extra_info`, `contact_tags` and `contact_aliases`; serves the
 * `/contacts` routes, `/contactTags/:contactId`, `POST /tags/sync`, `POST /contactsImport`, the sheet
 * import and the export, and the merge of duplicates (`GET /contacts/duplicates`, `POST
 * /contacts/merge/preview`, `POST /contacts/merge`: issue 33 item 5); contributes the `contactsCount` tag
 * counter; provides the `contacts` service and owns the `contacts.decorators` and `contacts.mergers`
 * extension points. Contract: `./contract.ts` (`@atendo/plugin-contacts/contract`).
 */
export default definePlugin<{ defaultCountry: string; profileLookupsPerMinute: number }>({
  id: 'contacts',
  dependsOn: ['tags'],
  errors,
  migrationsDir: join(__dirname, '..', 'migrations'),
  configSchema: ConfigSchema,
  async register(ctx) {
    const store = new ContactStore(
      ctx.db,
      ctx.services.get(tagsService),
      ctx.realtime,
      ctx.identity,
      { fileUrl: (companyId, path) => ctx.uploads.url(companyId, path), frontendUrl: ctx.kernel.frontendUrl.replace(/\/+$/, '') },
      (ctx.config.defaultCountry ?? 'BR') as CountryCode,
    );
    store.useDecorators(ctx.extensions.declare(contactDecorators));
    // One contact per person (issue 33 item 5): plugins holding contacts' rows move them in a merge.
    const merges = new ContactMerges(ctx.db, store, ctx.extensions.declare(contactMergers), ctx.audit);
    const imports = new ContactImports(store, ctx.realtime, ctx.log);
    ctx.onClose(() => imports.close());
    ctx.extensions.contribute(tagCounters, { key: 'contactsCount', count: (companyId, tagIds) => store.countByTag(companyId, tagIds) });
    ctx.services.provide(contactsService, store.service());
    await contactsRoutes(ctx.app, { store, profileLookupsPerMinute: ctx.config.profileLookupsPerMinute ?? 30, audit: ctx.audit });
    await importExportRoutes(ctx.app, { store, imports });
    await mergeRoutes(ctx.app, { merges });
  },
});
