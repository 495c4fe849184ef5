import { AppError, errorResponses, IdParams, Type, type PluginApp } from '@atendo/sdk';
import { AnonymizeAnswer, AnonymizeBody, PrivacySchema } from '../contract';
import type { DataSubject } from '../services/data-subject';
import type { ContactsService } from '@atendo/plugin-contacts/contract';

const errors = errorResponses(400, 401, 403, 404);

/**
 * The data subject's routes (issue 34 item 2; LGPD art. 18), admin only, scoped to the caller's company
 * (another company's contact is 404 ERR_NO_CONTACT_FOUND):
 * - `GET /contacts/:id/export` -> one JSON document (`ContactExport`: the contact with extra info and tags,
 *   consent records, tickets with messages (texts and signed media links) and notes, schedules), sent as
 *   an attachment `contact-<id>.json`. Audited (`export`).
 * - `POST /contacts/:id/anonymize` `{confirm: true}` -> `{contactId, tickets, messages, schedules}`: the
 *   contact's personal data and its conversations' texts and media erased, rows and ratings kept.
 *   Irreversible; 400 ERR_ANONYMIZE_NOT_CONFIRMED without `confirm: true`. Audited (`anonymize`).
 * - `GET /contacts/:id/privacy` -> `{contactId, lgpdAcceptedAt, anonymizedAt, optedOutAt, optOutKeyword}`.
 */
export async function dataSubjectRoutes(app: PluginApp, deps: { subject: DataSubject; contacts: ContactsService }): Promise<void> {
  const { subject, contacts } = deps;

  app.get('/contacts/:id/export', {
    config: { role: 'admin' },
    schema: { tags: ['compliance'], summary: "Everything held about a contact, as one JSON document (LGPD art. 18)", params: IdParams, response: { 200: Type.Unknown(), ...errors } },
  }, async (req, reply) => {
    const doc = await subject.export(req, req.params.id);
    void reply.header('content-disposition', `attachment; filename="contact-${req.params.id}.json"`);
    return doc;
  });

  app.post('/contacts/:id/anonymize', {
    config: { role: 'admin' },
    schema: { tags: ['compliance'], summary: "Erase a contact's personal data and its conversations' contents (irreversible)", params: IdParams, body: AnonymizeBody, response: { 200: AnonymizeAnswer, ...errors } },
  }, async (req) => {
    if (req.body.confirm !== true) throw new AppError('ERR_ANONYMIZE_NOT_CONFIRMED');
    return subject.anonymize(req, req.params.id);
  });

  app.get('/contacts/:id/privacy', {
    config: { role: 'admin' },
    schema: { tags: ['compliance'], summary: "A contact's consent, opt-out and anonymization state", params: IdParams, response: { 200: PrivacySchema, ...errors } },
  }, async (req) => {
    const companyId = req.auth.companyId;
    const contact = await contacts.get(companyId, req.params.id);
    if (!contact) throw new AppError('ERR_NO_CONTACT_FOUND');
    const p = (await contacts.privacyOf?.(companyId, [contact.id]))?.get(contact.id);
    return { contactId: contact.id, lgpdAcceptedAt: contact.lgpdAcceptedAt, anonymizedAt: p?.anonymizedAt ?? null, optedOutAt: p?.optedOutAt ?? null, optOutKeyword: p?.optOutKeyword ?? null };
  });
}
