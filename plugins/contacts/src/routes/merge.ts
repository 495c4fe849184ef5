import { Type, type PluginApp } from '@atendo/sdk';
import type { ContactMerges } from '../services/merge';
import { DuplicatesSchema, MergeBody, MergeCountsSchema, MergePreviewBody, MergePreviewSchema } from '../schemas/contacts';
import { ContactDetailsSchema } from '../contract';
import { errors } from './contacts';

/**
 * One contact per person (issue 33 item 5): the admin's tools for duplicates. Admins only (403
 * ERR_NO_PERMISSION for others); every id is a contact of the caller's company (404 ERR_NO_CONTACT_FOUND
 * otherwise: another company's contacts are unknown). Admins see numbers unmasked (LGPD masking is for
 * profile `user`).
 * - `GET /contacts/duplicates` -> `{groups: [{reasons: ('ninthDigit'|'lid')[], contacts: Contact[]}]}`: at most
 *   100 groups of contacts that look like one person (Brazilian 9th-digit twins, one WhatsApp LID).
 * - `POST /contacts/merge/preview` `{targetId, sourceIds: 1..20}` -> `{target, sources, result, counts,
 *   previewToken}`: what merging the sources into the target would do, changing nothing. 400
 *   ERR_VALIDATION (the target among the sources, a group contact).
 * - `POST /contacts/merge` `{targetId, sourceIds, previewToken}` -> `{contact: Contact & {extraInfo, tags},
 *   counts}`: the merge, in one transaction, audited; 409 ERR_MERGE_PREVIEW_STALE when a contact changed
 *   since the preview (preview again). Emits `company-{cid}-contact` delete for each source and update for
 *   the target after commit.
 */
export async function mergeRoutes(app: PluginApp, deps: { merges: ContactMerges }): Promise<void> {
  const { merges } = deps;

  app.get('/contacts/duplicates', {
    config: { role: 'admin' },
    schema: { tags: ['contacts'], summary: 'Groups of contacts that look like one person (9th-digit twins, one WhatsApp LID)', response: { 200: DuplicatesSchema, ...errors } },
  }, async (req) => ({ groups: await merges.duplicates(req.auth.companyId) }));

  app.post('/contacts/merge/preview', {
    config: { role: 'admin' },
    schema: { tags: ['contacts'], summary: 'What merging duplicates into a contact would move (changes nothing)', body: MergePreviewBody, response: { 200: MergePreviewSchema, ...errors } },
  }, async (req) => merges.preview(req.auth.companyId, req.body.targetId, req.body.sourceIds));

  app.post('/contacts/merge', {
    config: { role: 'admin' },
    schema: {
      tags: ['contacts'],
      summary: 'Merge duplicates into a contact: tickets, messages, tags and more move to it, the duplicates go (one transaction, audited)',
      body: MergeBody,
      response: { 200: Type.Object({ contact: ContactDetailsSchema, counts: MergeCountsSchema }, { additionalProperties: false }), ...errors },
    },
  }, async (req) => merges.merge(req.auth.companyId, req.body.targetId, req.body.sourceIds, req.body.previewToken, req));
}
