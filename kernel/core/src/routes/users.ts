import type { Knex } from 'knex';
import { AppError, hasRole, IdParams, ListQuery, page, Type, UPLOAD_TYPES, type AuthUser, type PublicUser, type Static, type PluginApp } from '@atendo/sdk';
import { hashPassword, toPublicUser, verifyPassword } from '../identity/service';
import { PLATFORM_COMPANY_ID } from '../identity/defaults';
import type { CoreDeps } from './deps';

/** Users per page of `GET /users`. */
export const USERS_PAGE_SIZE = 20;

const MAX_ID = 2147483647;
const HHMM = '^([01]\\d|2[0-3]):[0-5]\\d$';
/** Integer or null (response shapes). */
const NullableInteger = (opts: { minimum: number; maximum: number }) => Type.Unsafe<number | null>({ type: 'integer', nullable: true, ...opts });
/**
 * Integer, null, or `''` (the old client's empty select; treated as null). A type list rather than `anyOf`
 * so that, were bodies coerced, null would not turn into 0.
 */
const IntegerOrEmpty = (opts: { minimum: number; maximum: number }) =>
  Type.Unsafe<number | null | ''>({ type: ['integer', 'null', 'string'], maxLength: 0, ...opts });
const NullableString = (opts: { maxLength: number; pattern?: string; enum?: (string | null)[] }) => Type.Unsafe<string | null>({ type: 'string', nullable: true, ...opts });

const Email = Type.String({ minLength: 3, maxLength: 255, pattern: '^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$' });
const Profile = Type.Union([Type.Literal('admin'), Type.Literal('user'), Type.Literal('supervisor')]);
const Language = NullableString({ maxLength: 5, enum: ['pt-BR', 'en', 'es', 'tr', '', null] });
/** `HH:mm`; `''` or null mean "no limit" (00:00 to 23:59). */
const WorkTime = Type.Unsafe<string | null>({ type: 'string', nullable: true, maxLength: 5, pattern: `(${HHMM})|^$` });

const UserFields = {
  name: Type.String({ minLength: 2, maxLength: 50 }),
  email: Email,
  profile: Type.Optional(Profile),
  super: Type.Optional(Type.Boolean()),
  startWork: Type.Optional(WorkTime),
  endWork: Type.Optional(WorkTime),
  allTicket: Type.Optional(Type.Union([Type.Literal('enable'), Type.Literal('disable')])),
  allowGroup: Type.Optional(Type.Boolean()),
  defaultTheme: Type.Optional(Type.Union([Type.Literal('light'), Type.Literal('dark')])),
  defaultMenu: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('closed')])),
  farewellMessage: Type.Optional(NullableString({ maxLength: 5000 })),
  whatsappId: Type.Optional(IntegerOrEmpty({ minimum: 1, maximum: MAX_ID })),
  language: Type.Optional(Language),
  /** The user's WhatsApp number (admin-only): where password-reset codes go (`POST /api/enviar-email`). */
  wpp: Type.Optional(NullableString({ maxLength: 50, pattern: '^[+0-9 ().-]*$' })),
  /** Saved by user extensions (the queues plugin); ignored when none is loaded. */
  queueIds: Type.Optional(Type.Array(Type.Integer({ minimum: 1, maximum: MAX_ID }), { maxItems: 500 })),
  /** Honoured only for super users on create; ignored on update. */
  companyId: Type.Optional(IntegerOrEmpty({ minimum: 1, maximum: MAX_ID })),
};
const CreateUserBody = Type.Object({ ...UserFields, password: Type.String({ minLength: 5, maxLength: 50 }) });
/** Every field optional; an empty or null `password` leaves the password unchanged. */
const UpdateUserBody = Type.Partial(
  Type.Object({
    ...UserFields,
    password: Type.Unsafe<string | null>({ type: 'string', nullable: true, maxLength: 50, pattern: '^(.{5,}|)$' }),
    /** The caller's current password: required when a non-admin user changes its own password, checked when given. */
    currentPassword: Type.String({ maxLength: 200 }),
  }),
);
type CreateUserBody = Static<typeof CreateUserBody>;
type UpdateUserBody = Static<typeof UpdateUserBody>;

const UserQueueRef = Type.Object(
  { id: Type.Integer(), name: Type.String(), color: Type.String(), UserQueue: Type.Object({ userId: Type.Integer(), queueId: Type.Integer() }, { additionalProperties: true }) },
  { additionalProperties: true },
);
/**
 * A user as every answer shows it: no password hash, token version or session data. Extensions (for
 * example `queues`) add keys, hence `additionalProperties`; secrets are stripped by `toPublicUser` first.
 */
const UserSchema = Type.Object(
  {
    id: Type.Integer(),
    companyId: Type.Integer(),
    name: Type.String(),
    email: Type.String(),
    profile: Type.String(),
    super: Type.Boolean(),
    online: Type.Boolean(),
    profileImage: NullableString({ maxLength: 255 }),
    whatsappId: NullableInteger({ minimum: 0, maximum: MAX_ID }),
    startWork: Type.String(),
    endWork: Type.String(),
    allTicket: Type.String(),
    allowGroup: Type.Boolean(),
    defaultTheme: Type.String(),
    defaultMenu: Type.String(),
    farewellMessage: NullableString({ maxLength: 5000 }),
    language: NullableString({ maxLength: 10 }),
    color: NullableString({ maxLength: 20 }),
    wpp: NullableString({ maxLength: 50 }),
    createdAt: Type.String(),
    updatedAt: Type.String(),
    queues: Type.Optional(Type.Array(UserQueueRef)),
  },
  { additionalProperties: true },
);
const UserListItem = Type.Object(
  { id: Type.Integer(), name: Type.String(), email: Type.String(), profile: Type.String(), online: Type.Boolean(), queues: Type.Optional(Type.Array(UserQueueRef)) },
  { additionalProperties: false },
);
const IgnoredCompanyQuery = Type.Object({
  /** Sent by old clients; ignored: the caller's company is always used. */
  companyId: Type.Optional(Type.String({ maxLength: 20 })),
});

/** Upload area of profile pictures: `company{id}/user/{profileImage}` (wire-shapes §0 "URL getters"). */
export const PROFILE_AREA = 'user';
/** Largest profile picture. */
export const PROFILE_IMAGE_MAX_BYTES = 2 * 1024 * 1024;

/**
 * `user` with `profileImageUrl`: a signed URL of its picture (so an `<img>` loads it without a bearer
 * header), or null. Old clients build the unsigned `/public/company{id}/user/{profileImage}` themselves.
 */
export function withPictureUrl<T extends { companyId: number; profileImage?: string | null }>(user: T, uploads: { url(companyId: number, path: string): string } | undefined): T & { profileImageUrl: string | null } {
  return { ...user, profileImageUrl: user.profileImage && uploads ? uploads.url(user.companyId, `${PROFILE_AREA}/${user.profileImage}`) : null };
}

/** Fields only admins may change (spec user-modal:editProfile / editQueues). */
const ADMIN_ONLY = ['profile', 'queueIds', 'allTicket', 'allowGroup', 'whatsappId', 'startWork', 'endWork', 'wpp'] as const;

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);
const workTime = (v: string | null | undefined, fallback: string) => (v ? v : fallback);
/** A users row as read here (secrets included: never answer it as is, see `present`). */
type UserRow = PublicUser & { passwordHash: string; tokenVersion: number };

const isUniqueEmail = (err: unknown) => (err as { code?: string; constraint?: string }).code === '23505' && (err as { constraint?: string }).constraint === 'users_email_lower_unique';

/**
 * User administration (spec 1-platform.md §6, 2-tickets.md §2 "Users", §7 "Users"; wire-shapes GET /users):
 * - `GET /users` and `GET /users/` (admin) `?searchParam&pageNumber` -> `{users, count, hasMore}`: the
 *   caller's company, 20 a page, newest first, searched on name and e-mail; each user decorated by the user
 *   extensions (`queues`; list-only keys such as the tickets plugin's `tickets`).
 * - `GET /users/list` (any signed-in user) -> `[{id, name, email, profile, online, queues?}]` of the
 *   caller's company, by name (transfer modals, filters).
 * - `GET /users/:id` (admin, or the user itself) -> user. Super users may read any company's user.
 * - `POST /users` (admin) -> 200 user. 409 ERR_DUPLICATED_EMAIL (platform-wide, case-insensitive);
 *   400 ERR_PLAN_LIMIT_REACHED at the plan's `users` limit; 403 ERR_USER_CREATION_DISABLED when the
 *   platform setting `userCreation` is disabled (super users exempt); 403 ERR_NO_PERMISSION when a
 *   non-super sets `super` or another company's `companyId`. A super user's `companyId` picks the company.
 * - `PUT /users/:id` (admin; or the user itself for name, email, password, farewellMessage, defaultTheme,
 *   defaultMenu, language) -> 200 user. 403 ERR_NO_PERMISSION when a non-admin changes an admin-only field.
 *   A new password is re-hashed, bumps `tokenVersion` and revokes every refresh session of the user.
 *   Anyone (admins too) changing its own password must send `currentPassword` (400 ERR_WRONG_CURRENT_PASSWORD); it
 *   is checked whenever it is sent.
 * - `POST /users/:id/media-upload` (admin, or the user itself) multipart `profileImage` -> 200 user with its
 *   new `profileImage` (stored as `user/{file}`; the previous file is removed). Every user answer carries
 *   `profileImageUrl`, a signed URL of the picture (or null).
 * - `DELETE /users/:id` (admin) -> 200 `{message}`; 400 ERR_CANNOT_DELETE_SELF; 400 ERR_LAST_SUPER_USER.
 * Unknown ids and other companies' ids answer 404 ERR_NO_USER_FOUND (super users excepted). Only super
 * users may change or delete a super user. Events after commit on `company-{id}-user`:
 * `{action:'create'|'update', user}` and `{action:'delete', userId}`.
 */
/** The fields of a user an audit entry shows (no secrets, no timestamps). */
function auditUser(row: UserRow): Record<string, unknown> {
  const { name, email, profile, super: isSuper, whatsappId, allTicket, allowGroup, startWork, endWork } = row as unknown as Record<string, unknown>;
  return { name, email, profile, super: isSuper, whatsappId, allTicket, allowGroup, startWork, endWork };
}

export async function usersRoutes(app: PluginApp, deps: CoreDeps): Promise<void> {
  const { db, identity, sessions, realtime } = deps;

  /** The users row `id` as the caller may address it: own company, or any company for super users. */
  const findTarget = async (auth: AuthUser, id: number, trx: Knex | Knex.Transaction = db, lock = false): Promise<UserRow | undefined> => {
    const q = trx('users').where({ id });
    if (!auth.super) q.where({ companyId: auth.companyId });
    if (lock) q.forUpdate();
    return q.first();
  };
  const present = async (row: UserRow | Record<string, unknown>): Promise<PublicUser> => {
    const user = toPublicUser(row);
    const [decorated] = await identity.decorate(user.companyId, [user]);
    return withPictureUrl(decorated, deps.uploads);
  };
  const emit = (companyId: number, payload: unknown) => realtime.emitToCompany(companyId, `company-${companyId}-user`, payload);
  const emailTaken = async (trx: Knex.Transaction, email: string, exceptId?: number) => {
    const q = trx('users').whereRaw('lower(email) = ?', [email]);
    if (exceptId !== undefined) q.whereNot({ id: exceptId });
    return Boolean(await q.first('id'));
  };
  /**
   * Serialises changes that may remove a super user (deletes, demotions). Taken first in the transaction,
   * before any row lock, so two such changes cannot both see "another super user remains".
   */
  const lockSuperChanges = (trx: Knex.Transaction) => trx.raw('SELECT pg_advisory_xact_lock(4242003)');
  /** Throws ERR_LAST_SUPER_USER unless another super user remains (call under `lockSuperChanges`). */
  const assertOtherSuper = async (trx: Knex.Transaction, userId: number) => {
    const other = await trx('users').where({ super: true }).whereNot({ id: userId }).first('id');
    if (!other) throw new AppError('ERR_LAST_SUPER_USER');
  };
  const saveExtensions = async (trx: Knex.Transaction, companyId: number, userId: number, body: Record<string, unknown>) => {
    for (const ext of identity.extensions) if (ext.save) await ext.save(trx, companyId, userId, body);
  };

  const list = async (req: { auth: AuthUser; query: ListQuery }) => {
    const { searchParam, pageNumber } = req.query;
    const { offset, limit, hasMore } = page(pageNumber, USERS_PAGE_SIZE);
    const base = db('users').where({ companyId: req.auth.companyId });
    const term = searchParam?.trim().toLowerCase();
    if (term) {
      const like = `%${escapeLike(term)}%`;
      base.where((w) => w.whereRaw('lower(name) LIKE ?', [like]).orWhereRaw('lower(email) LIKE ?', [like]));
    }
    const [{ n }] = await base.clone().count({ n: '*' });
    const rows = await base.orderBy([{ column: 'createdAt', order: 'desc' }, { column: 'id', order: 'desc' }]).offset(offset).limit(limit);
    const users = (await identity.decorate(req.auth.companyId, rows.map(toPublicUser))).map((u) => withPictureUrl(u, deps.uploads));
    for (const ext of identity.extensions) if (ext.decorateList && users.length) await ext.decorateList(req.auth.companyId, users);
    return { users, count: Number(n), hasMore: hasMore(Number(n), users.length) };
  };
  const listSchema = {
    config: { role: 'admin' as const },
    schema: {
      tags: ['users'],
      summary: "The company's users, 20 a page",
      querystring: Type.Object({ ...ListQuery.properties, ...IgnoredCompanyQuery.properties }),
      response: { 200: Type.Object({ users: Type.Array(UserSchema), count: Type.Integer(), hasMore: Type.Boolean() }) },
    },
  };
  app.get('/users', listSchema, list);
  app.get('/users/', listSchema, list);

  app.get('/users/list', {
    schema: { tags: ['users'], summary: "The company's users, short form, by name", querystring: IgnoredCompanyQuery, response: { 200: Type.Array(UserListItem) } },
  }, async (req) => {
    const rows = await db('users').where({ companyId: req.auth.companyId }).orderBy(['name', 'id']).select('id', 'companyId', 'name', 'email', 'profile', 'online');
    return identity.decorate(req.auth.companyId, rows as PublicUser[]);
  });

  app.get('/users/:id', {
    schema: { tags: ['users'], summary: 'One user', params: IdParams, response: { 200: UserSchema } },
  }, async (req) => {
    const { id } = req.params;
    const row = await findTarget(req.auth, id);
    if (!row) throw new AppError('ERR_NO_USER_FOUND');
    if (row.id !== req.auth.id && !hasRole(req.auth, 'admin')) throw new AppError('ERR_NO_PERMISSION');
    return present(row);
  });

  app.post('/users', {
    config: { role: 'admin' },
    schema: { tags: ['users'], summary: 'Create a user', body: CreateUserBody, response: { 200: UserSchema } },
  }, async (req) => {
    const auth = req.auth;
    const body = req.body;
    if (!auth.super) {
      const creation = await db('settings').where({ companyId: PLATFORM_COMPANY_ID, key: 'userCreation' }).first('value');
      if (creation?.value === 'disabled') throw new AppError('ERR_USER_CREATION_DISABLED');
      if (body.super) throw new AppError('ERR_NO_PERMISSION', 'Only super users may create super users');
      if (body.companyId && body.companyId !== auth.companyId) throw new AppError('ERR_NO_PERMISSION', 'Users can only be created in your own company');
    }
    const companyId = auth.super && body.companyId ? body.companyId : auth.companyId;
    if (companyId !== auth.companyId && !(await identity.getCompany(companyId))) throw new AppError('ERR_NO_COMPANY_FOUND');
    const name = body.name.trim();
    if (name.length < 2) throw new AppError('ERR_VALIDATION', 'name must be at least 2 characters');
    const email = body.email.trim().toLowerCase();
    // The default connection must be one of the company's (404 ERR_NO_WAPP_FOUND).
    await deps.references?.assert(companyId, 'connection', body.whatsappId || null, 'whatsappId');
    const passwordHash = await hashPassword(body.password);
    let row: UserRow;
    try {
      row = await db.transaction(async (trx) => {
        if (await emailTaken(trx, email)) throw new AppError('ERR_DUPLICATED_EMAIL');
        const created = await identity.withinPlanLimit(
          trx,
          companyId,
          'users',
          async (t) => Number((await t('users').where({ companyId }).count({ n: '*' }).first())?.n ?? 0),
          async () => {
            const [r] = await trx('users')
              .insert({
                companyId,
                name,
                email,
                passwordHash,
                profile: body.profile ?? 'user',
                super: Boolean(body.super),
                startWork: workTime(body.startWork, '00:00'),
                endWork: workTime(body.endWork, '23:59'),
                allTicket: body.allTicket ?? 'disable',
                allowGroup: body.allowGroup ?? false,
                defaultTheme: body.defaultTheme ?? 'light',
                defaultMenu: body.defaultMenu ?? 'closed',
                farewellMessage: body.farewellMessage || null,
                whatsappId: body.whatsappId || null,
                language: body.language || null,
                wpp: body.wpp?.trim() || null,
              })
              .returning('*');
            return r as UserRow;
          },
        );
        await saveExtensions(trx, companyId, created.id, body as Record<string, unknown>);
        await deps.audit.record(trx, { req, companyId, entity: 'user', entityId: created.id, action: 'create', after: auditUser(created) });
        return created;
      });
    } catch (err) {
      if (isUniqueEmail(err)) throw new AppError('ERR_DUPLICATED_EMAIL');
      throw err;
    }
    const user = await present(row);
    emit(companyId, { action: 'create', user });
    return user;
  });

  app.put('/users/:id', {
    schema: { tags: ['users'], summary: 'Update a user', params: IdParams, body: UpdateUserBody, response: { 200: UserSchema } },
  }, async (req) => {
    const auth = req.auth;
    const { id } = req.params;
    const body = req.body;
    const isAdmin = hasRole(auth, 'admin');
    const current = await findTarget(auth, id);
    if (!current) throw new AppError('ERR_NO_USER_FOUND');
    if (current.id !== auth.id && !isAdmin) throw new AppError('ERR_NO_PERMISSION');
    if (current.super && !auth.super) throw new AppError('ERR_NO_PERMISSION', 'Only super users may change a super user');
    if (body.super !== undefined && body.super !== current.super && !auth.super) throw new AppError('ERR_NO_PERMISSION', 'Only super users may change the super flag');

    const patch: Record<string, unknown> = {};
    if (body.name !== undefined) {
      patch.name = body.name.trim();
      if ((patch.name as string).length < 2) throw new AppError('ERR_VALIDATION', 'name must be at least 2 characters');
    }
    if (body.email !== undefined) patch.email = body.email.trim().toLowerCase();
    if (body.farewellMessage !== undefined) patch.farewellMessage = body.farewellMessage || null;
    if (body.defaultTheme !== undefined) patch.defaultTheme = body.defaultTheme;
    if (body.defaultMenu !== undefined) patch.defaultMenu = body.defaultMenu;
    if (body.language !== undefined) patch.language = body.language || null;
    if (body.super !== undefined && auth.super) patch.super = body.super;

    const admin: Record<string, unknown> = {};
    if (body.profile !== undefined) admin.profile = body.profile;
    if (body.startWork !== undefined) admin.startWork = workTime(body.startWork, '00:00');
    if (body.endWork !== undefined) admin.endWork = workTime(body.endWork, '23:59');
    if (body.allTicket !== undefined) admin.allTicket = body.allTicket;
    if (body.allowGroup !== undefined) admin.allowGroup = body.allowGroup;
    if (body.whatsappId !== undefined) admin.whatsappId = body.whatsappId || null;
    if (body.wpp !== undefined) admin.wpp = body.wpp?.trim() || null;
    const extBody: Record<string, unknown> = { ...body };
    if (!isAdmin) {
      // A plain user may resend its own values (the old modal posts the whole form) but not change them.
      for (const [k, v] of Object.entries(admin)) {
        if (v !== (current as unknown as Record<string, unknown>)[k]) throw new AppError('ERR_NO_PERMISSION', `Only admins may change ${k}`);
      }
      if (body.queueIds !== undefined) {
        const decorated = await present(current);
        if (Array.isArray(decorated.queues)) {
          const mine = new Set((decorated.queues as { id: number }[]).map((q) => q.id));
          const sent = new Set(body.queueIds);
          if (sent.size !== mine.size || [...sent].some((q) => !mine.has(q))) throw new AppError('ERR_NO_PERMISSION', 'Only admins may change queueIds');
        }
      }
      for (const k of ADMIN_ONLY) delete extBody[k];
    } else {
      // The default connection must be one of the company's (404 ERR_NO_WAPP_FOUND).
      if (admin.whatsappId !== undefined && admin.whatsappId !== current.whatsappId) {
        await deps.references?.assert(current.companyId, 'connection', admin.whatsappId as number | null, 'whatsappId');
      }
      Object.assign(patch, admin);
    }
    // Changing one's own password takes the current one, whoever the caller is (a stolen access token alone
    // cannot take the account over); an admin setting another user's password does not.
    if (body.password && current.id === auth.id) {
      const own = await db('users').where({ id: current.id }).first('passwordHash');
      if (!body.currentPassword || !own || !(await verifyPassword(own.passwordHash, body.currentPassword))) throw new AppError('ERR_WRONG_CURRENT_PASSWORD');
    }
    const passwordHash = body.password ? await hashPassword(body.password) : undefined;

    let row: UserRow;
    try {
      row = await db.transaction(async (trx) => {
        if (body.super === false) await lockSuperChanges(trx);
        const locked = await findTarget(auth, id, trx, true);
        if (!locked) throw new AppError('ERR_NO_USER_FOUND');
        if (patch.email !== undefined && patch.email !== locked.email.toLowerCase() && (await emailTaken(trx, patch.email as string, locked.id))) {
          throw new AppError('ERR_DUPLICATED_EMAIL');
        }
        if (patch.super === false && locked.super) await assertOtherSuper(trx, locked.id);
        const update: Record<string, unknown> = { ...patch, updatedAt: trx.fn.now() };
        if (passwordHash) {
          update.passwordHash = passwordHash;
          update.tokenVersion = trx.raw('token_version + 1');
          await sessions.revokeUser(trx, locked.id);
        }
        const [updated] = await trx('users').where({ id: locked.id, companyId: locked.companyId }).update(update).returning('*');
        await saveExtensions(trx, locked.companyId, locked.id, extBody);
        await deps.audit.record(trx, { req, companyId: locked.companyId, entity: 'user', entityId: locked.id, action: 'update', before: { ...auditUser(locked), password: undefined }, after: { ...auditUser(updated as UserRow), ...(passwordHash ? { passwordChanged: true } : {}) } });
        return updated as UserRow;
      });
    } catch (err) {
      if (isUniqueEmail(err)) throw new AppError('ERR_DUPLICATED_EMAIL');
      throw err;
    }
    const user = await present(row);
    emit(row.companyId, { action: 'update', user });
    // Profile, super flag or password may have changed: tokens signed before are re-checked everywhere (and
    // the user's sockets re-judged); queue memberships or flags too: its sockets re-join their audiences.
    deps.guard.changed({ companyId: row.companyId, userId: row.id });
    realtime.refreshAudiences(row.companyId, row.id);
    return user;
  });

  app.post('/users/:id/media-upload', {
    schema: {
      tags: ['users'],
      summary: "The user's profile picture (multipart file `profileImage`; PNG, JPEG, WebP or GIF by content, at most 2 MiB)",
      params: IdParams,
      consumes: ['multipart/form-data'],
      response: { 200: UserSchema },
    },
  }, async (req) => {
    const auth = req.auth;
    const { id } = req.params;
    const current = await findTarget(auth, id);
    if (!current) throw new AppError('ERR_NO_USER_FOUND');
    if (current.id !== auth.id && !hasRole(auth, 'admin')) throw new AppError('ERR_NO_PERMISSION');
    if (current.super && !auth.super && current.id !== auth.id) throw new AppError('ERR_NO_PERMISSION', 'Only super users may change a super user');
    if (!deps.uploads) throw new AppError('ERR_INTERNAL');
    if (!req.isMultipart()) throw new AppError('ERR_UNSUPPORTED_MEDIA_TYPE', 'Send multipart/form-data with the file in "profileImage"');
    let stored: Awaited<ReturnType<NonNullable<CoreDeps['uploads']>['save']>> | undefined;
    for await (const part of req.parts()) {
      if (part.type !== 'file') continue; // userId, typeArch of old clients
      if (stored || part.fieldname !== 'profileImage') {
        part.file.resume();
        if (!stored) throw new AppError('ERR_VALIDATION', 'The picture goes in the multipart field "profileImage"');
        continue;
      }
      stored = await deps.uploads.save(current.companyId, PROFILE_AREA, part, { allow: UPLOAD_TYPES.images, maxBytes: PROFILE_IMAGE_MAX_BYTES });
    }
    if (!stored) throw new AppError('ERR_VALIDATION', 'A picture file is required in "profileImage"');
    const file = stored.path.slice(PROFILE_AREA.length + 1);
    const [row] = await db('users').where({ id: current.id, companyId: current.companyId }).update({ profileImage: file, updatedAt: db.fn.now() }).returning('*');
    if (current.profileImage && current.profileImage !== file) await deps.uploads.remove(current.companyId, `${PROFILE_AREA}/${current.profileImage}`);
    await deps.audit.record({ req, companyId: current.companyId, entity: 'user', entityId: current.id, action: 'update', before: { profileImage: current.profileImage ?? null }, after: { profileImage: file } });
    const user = await present(row as UserRow);
    emit(current.companyId, { action: 'update', user });
    return user;
  });

  app.delete('/users/:id', {
    config: { role: 'admin' },
    schema: { tags: ['users'], summary: 'Delete a user', params: IdParams, response: { 200: Type.Object({ message: Type.String() }) } },
  }, async (req) => {
    const auth = req.auth;
    const { id } = req.params;
    const companyId = await db.transaction(async (trx) => {
      await lockSuperChanges(trx);
      const row = await findTarget(auth, id, trx, true);
      if (!row) throw new AppError('ERR_NO_USER_FOUND');
      if (row.id === auth.id) throw new AppError('ERR_CANNOT_DELETE_SELF');
      if (row.super) {
        if (!auth.super) throw new AppError('ERR_NO_PERMISSION', 'Only super users may delete a super user');
        await assertOtherSuper(trx, row.id);
      }
      await sessions.revokeUser(trx, row.id, row.companyId);
      await trx('users').where({ id: row.id, companyId: row.companyId }).del();
      await deps.audit.record(trx, { req, companyId: row.companyId, entity: 'user', entityId: row.id, action: 'delete', before: auditUser(row) });
      return row.companyId;
    });
    emit(companyId, { action: 'delete', userId: id });
    return { message: 'User deleted' };
  });
}
