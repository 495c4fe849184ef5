import { Type, type Static } from '@atendo/sdk';

/** The plugin's config, from env vars `NOTIFICATIONS_<KEY>`, validated at boot. */
export const NotificationsConfig = Type.Object({
  /** `NOTIFICATIONS_PAGE_SIZE`: notifications per page of `GET /notifications`. */
  pageSize: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  /**
   * `NOTIFICATIONS_SMTP_URL`: where e-mails go out (`smtp://user:pass@host:587`, `smtps://...:465`); unset or
   * empty: no e-mails (admins without a WhatsApp number get the in-app notification only).
   */
  smtpUrl: Type.String({ default: '', maxLength: 2000 }),
  /** `NOTIFICATIONS_MAIL_FROM`: the e-mails' sender (`Atendo <alerts@example.com>`). */
  mailFrom: Type.String({ default: 'Atendo <atendo@localhost>', maxLength: 300 }),
});
export type NotificationsConfig = Static<typeof NotificationsConfig>;
