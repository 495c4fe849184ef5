import { join } from 'node:path';
import type { CountryCode } from 'libphonenumber-js/max';
import { definePlugin, Type } from '@atendo/sdk';
import type { TagsService } from '@atendo/plugin-tags';
import { ContactStore } from './services/contacts';
import { ContactImports } from './services/import';
import { contactsRoutes } from './routes/contacts';
import { importExportRoutes } from './routes/import-export';

export type {
  Contact,
  ContactChannel,
  ContactDecorator,
  ContactDetails,
  ContactExtraInfo,
  ContactListItem,
  ContactsService,
  ContactTagRef,
  FindOrCreateInput,
} from './services/contacts';
export { maskNumber, normalizePhone, cleanNumber, phoneCandidates } from './services/numbers';
export type { ImportProgress } from './services/import';
export { ContactSchema, ContactDetailsSchema, ContactTagSchema } from './schemas/contacts';

/** Config (env `CONTACTS_DEFAULT_COUNTRY`): the country of numbers typed without a country code. */
const ConfigSchema = Type.Object({ defaultCountry: Type.String({ pattern: '^[A-Z]{2}$', default: 'BR' }) });

/**
 * The contacts plugin (spec 2-tickets.md §2 "Contacts", §3 "Contact", §6 LGPD masking, §7 "Contacts and
 * notes"): owns `contacts`, `contact_extra_info` and `contact_tags`; serves the `/contacts` routes,
 * `/contactTags/:contactId`, `POST /tags/sync`, `POST /contactsImport`, the sheet import and the export;
 * registers the `contactsCount` tag counter; provides the `contacts` service (`ContactsService`).
 */
export default definePlugin<{ defaultCountry: string }>({
  id: 'contacts',
  dependsOn: ['tags'],
  migrationsDir: join(__dirname, '..', 'migrations'),
  configSchema: ConfigSchema,
  async register(ctx) {
    const tags = ctx.services.get<TagsService>('tags');
    const store = new ContactStore(
      ctx.db,
      tags,
      ctx.realtime,
      ctx.identity,
      { publicUrl: ctx.kernel.publicUrl.replace(/\/+$/, ''), frontendUrl: ctx.kernel.frontendUrl.replace(/\/+$/, '') },
      (ctx.config.defaultCountry ?? 'BR') as CountryCode,
    );
    const imports = new ContactImports(store, ctx.realtime, ctx.log);
    ctx.onClose(() => imports.close());
    tags.registerCounter('contactsCount', (companyId, tagIds) => store.countByTag(companyId, tagIds));
    ctx.services.provide('contacts', store.service());
    await contactsRoutes(ctx.app, { store });
    await importExportRoutes(ctx.app, { store, imports });
  },
});
