/**
 * The announcements plugin's contract (import it as `@atendo/plugin-announcements/contract`): the wire
 * schema of an announcement, its socket event and upload rules, and the plugin's error codes. Types and
 * `define*` calls only: importing it pulls neither fastify nor knex. Announcements provides no service and
 * publishes no bus topic.
 */
import { defineErrors, Nullable, Type, type Static } from '@atendo/sdk';

/** Error codes owned by the announcements plugin (merged into the catalogue at boot). */
export const errors = defineErrors({
  ERR_NO_ANNOUNCEMENT_FOUND: { status: 404, message: 'Announcement not found' },
});
declare module '@atendo/sdk' {
  // eslint-disable-next-line @typescript-eslint/no-empty-interface
  interface ErrorCodes extends Record<keyof typeof errors, true> {}
}

/**
 * The socket.io event of announcement changes (spec 1-platform.md §9): `{action: 'create'|'update', record:
 * Announcement}` or `{action: 'delete', id}`. Only active announcements reach readers, and only in the
 * companies they target: `create` when one becomes visible to a company (created active, activated, or
 * targeted), `update` while it stays visible, `delete` when it stops being visible (deactivated, untargeted,
 * deleted). Super users of the platform company get every change (drafts too) for the admin screen.
 */
export const ANNOUNCEMENT_EVENT = 'company-announcement';
/** The attachment accepts .png, .jpg and .jpeg (spec 3-campaigns-and-tools.md §6), checked by content. */
export const MEDIA_TYPES: readonly string[] = ['image/png', 'image/jpeg'];
/** Largest attachment: 5 MiB (an image shown in a popover needs no more). */
export const MEDIA_MAX_BYTES = 5 * 1024 * 1024;
/** Page size of `GET /announcements/`. */
export const PAGE_SIZE = 20;

/**
 * An announcement as the API answers it. `priority`: 1 high, 2 medium, 3 low. `mediaPath` is a signed URL
 * of the image (valid 7 days, loadable by any browser without a bearer) or null. `companyId` is the author's
 * company; announcements are platform-wide.
 */
export const AnnouncementSchema = Type.Object(
  {
    id: Type.Integer(),
    priority: Type.Integer({ minimum: 1, maximum: 3 }),
    title: Type.String(),
    text: Type.String(),
    mediaPath: Nullable(Type.String()),
    mediaName: Nullable(Type.String()),
    companyId: Type.Integer(),
    /** The companies it is shown to; null: every company. */
    targetCompanyIds: Nullable(Type.Array(Type.Integer())),
    status: Type.Boolean(),
    createdAt: Type.String(),
    updatedAt: Type.String(),
  },
  { additionalProperties: false },
);
export type Announcement = Static<typeof AnnouncementSchema>;

/** The payload of `ANNOUNCEMENT_EVENT`. */
export type AnnouncementEvent = { action: 'create' | 'update'; record: Announcement } | { action: 'delete'; id: number };

/** The socket audience of super users (every announcement change, drafts included, reaches them). */
export const SUPER_AUDIENCE = 'announcements:super';
