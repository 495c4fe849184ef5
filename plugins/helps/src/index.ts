import { join } from 'node:path';
import { AppError, definePlugin, ErrorResponse, IdParams, Type, type Static } from '@atendo/sdk';

const iso = (v: unknown): string => (v instanceof Date ? v.toISOString() : String(v ?? ''));

/** A help entry as the API answers it. Help entries are platform-wide: there is no `companyId`. */
export const HelpSchema = Type.Object(
  {
    id: Type.Integer(),
    title: Type.String(),
    video: Type.String(),
    description: Type.String(),
    link: Type.Union([Type.String(), Type.Null()]),
    createdAt: Type.String(),
    updatedAt: Type.String(),
  },
  { additionalProperties: false },
);
export type Help = Static<typeof HelpSchema>;

const Title = Type.String({ minLength: 1, maxLength: 200 });
const fields = {
  /** The video code (for example a YouTube id) the help page embeds. */
  video: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
  description: Type.Optional(Type.Union([Type.String({ maxLength: 5000 }), Type.Null()])),
  /** An optional http(s) link to further reading. */
  link: Type.Optional(Type.Union([Type.String({ maxLength: 500, pattern: '^$|^https?://\\S+$' }), Type.Null()])),
};
const CreateHelpBody = Type.Object({ title: Title, ...fields });
const UpdateHelpBody = Type.Object({ title: Type.Optional(Title), ...fields });
type HelpBody = Partial<Static<typeof CreateHelpBody>>;

/** A helps row as the API answers it (ISO timestamps, strings never null except `link`). */
export function helpOut(row: Record<string, unknown>): Help {
  return {
    id: row.id as number,
    title: String(row.title),
    video: String(row.video ?? ''),
    description: String(row.description ?? ''),
    link: (row.link as string | null) || null,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

/** Columns from a create/update body: trimmed, blank title refused (400 ERR_VALIDATION), '' link -> null. */
function helpValues(body: HelpBody): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (body.title !== undefined) {
    const title = body.title.trim();
    if (!title) throw new AppError('ERR_VALIDATION', 'title must not be blank');
    out.title = title;
  }
  if (body.video !== undefined) out.video = (body.video ?? '').trim();
  if (body.description !== undefined) out.description = body.description ?? '';
  if (body.link !== undefined) out.link = body.link?.trim() || null;
  return out;
}

/**
 * The helps plugin (spec 1-platform.md §2 "Plans admin and helps admin", §3 "Help", §6, §7): help videos
 * shown on /helps to every signed-in user, managed by super users. Help entries are platform-wide.
 * - `GET /helps`, `GET /helps/list` (any signed-in user) -> `Help[]` ordered by title.
 * - `GET /helps/:id` (any signed-in user) -> Help; 404 ERR_NO_HELP_FOUND.
 * - `POST /helps` (super) {title 1..200, video? <= 200, description? <= 5000, link?} -> 201 Help.
 * - `PUT /helps/:id` (super) same fields, all optional -> Help; 404 ERR_NO_HELP_FOUND.
 * - `DELETE /helps/:id` (super) -> 200 the deleted Help; 404 ERR_NO_HELP_FOUND.
 * Non-super callers of the writes get 403 ERR_NO_PERMISSION. No realtime events: the lists refresh over REST.
 */
export default definePlugin({
  id: 'helps',
  migrationsDir: join(__dirname, '../migrations'),
  register({ app, db }) {
    const errors = { 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 404: ErrorResponse };
    const list = async () => (await db('helps').orderBy('title').orderBy('id')).map(helpOut);

    for (const url of ['/helps', '/helps/list']) {
      app.get(url, {
        schema: { tags: ['helps'], summary: 'Every help entry, ordered by title', response: { 200: Type.Array(HelpSchema), ...errors } },
      }, list);
    }

    app.get('/helps/:id', {
      schema: { tags: ['helps'], summary: 'One help entry', params: IdParams, response: { 200: HelpSchema, ...errors } },
    }, async (req) => {
      const { id } = req.params as IdParams;
      const row = await db('helps').where({ id }).first();
      if (!row) throw new AppError('ERR_NO_HELP_FOUND');
      return helpOut(row);
    });

    app.post('/helps', {
      config: { role: 'super' },
      schema: { tags: ['helps'], summary: 'Create a help entry', body: CreateHelpBody, response: { 201: HelpSchema, ...errors } },
    }, async (req, reply) => {
      const [row] = await db('helps').insert(helpValues(req.body as HelpBody)).returning('*');
      return reply.status(201).send(helpOut(row));
    });

    app.put('/helps/:id', {
      config: { role: 'super' },
      schema: { tags: ['helps'], summary: 'Update a help entry', params: IdParams, body: UpdateHelpBody, response: { 200: HelpSchema, ...errors } },
    }, async (req) => {
      const { id } = req.params as IdParams;
      const [row] = await db('helps').where({ id }).update({ ...helpValues(req.body as HelpBody), updatedAt: db.fn.now() }).returning('*');
      if (!row) throw new AppError('ERR_NO_HELP_FOUND');
      return helpOut(row);
    });

    app.delete('/helps/:id', {
      config: { role: 'super' },
      schema: { tags: ['helps'], summary: 'Delete a help entry', params: IdParams, response: { 200: HelpSchema, ...errors } },
    }, async (req) => {
      const { id } = req.params as IdParams;
      const [row] = await db('helps').where({ id }).del().returning('*');
      if (!row) throw new AppError('ERR_NO_HELP_FOUND');
      return helpOut(row);
    });
  },
});
