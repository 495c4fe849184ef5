import { defineTopic } from './contracts';

/** User profiles (spec 1-platform.md §6). `super` is a separate flag on the user, not a profile. */
export const PROFILES = ['user', 'supervisor', 'admin'] as const;
export type Profile = (typeof PROFILES)[number];

/**
 * The minimum role a route requires. `public`: no token; `user`: any signed-in user;
 * `supervisor`: supervisor, admin or super; `admin`: admin or super; `super`: the super flag.
 */
export type RouteRole = 'public' | 'user' | 'supervisor' | 'admin' | 'super';

/** The caller, taken from a verified access token. `companyId` always comes from here, never from input. */
export interface AuthUser {
  id: number;
  companyId: number;
  profile: Profile;
  super: boolean;
}

const RANK: Record<Exclude<RouteRole, 'public'>, number> = { user: 0, supervisor: 1, admin: 2, super: 3 };

/** True when `user` holds at least `role`. Admin checks are case-insensitive as in the spec. */
export function hasRole(user: AuthUser, role: RouteRole): boolean {
  if (role === 'public' || role === 'user') return true;
  if (user.super) return true;
  const profile = String(user.profile).toLowerCase();
  const rank = profile === 'admin' ? RANK.admin : profile === 'supervisor' ? RANK.supervisor : RANK.user;
  return rank >= RANK[role];
}

/**
 * Bus topic the kernel publishes when a password-reset code is issued (`POST /api/enviar-email`). A plugin
 * that can reach WhatsApp (the connections plugin) delivers `text` to `to`. The payload carries the code in
 * clear (the bus is internal); consumers must never log `code`/`text` outside development.
 */
export const PASSWORD_RESET_CODE_TOPIC = 'auth.reset-code-issued';

/** Payload of `auth.reset-code-issued`. */
export interface PasswordResetCodeEvent {
  /** The user's company (the message itself goes out from the platform company's connection). */
  companyId: number;
  userId: number;
  /** Recipient: the user's registered WhatsApp number, digits only (country code included when known). */
  to: string;
  /** The 6-digit code. */
  code: string;
  /** The message to send, in the user's language. */
  text: string;
  /** ISO time after which the code no longer works. */
  expiresAt: string;
}

/** The typed topic of `auth.reset-code-issued` (kernel-owned). */
export const resetCodeIssued = defineTopic<PasswordResetCodeEvent>(PASSWORD_RESET_CODE_TOPIC, 'a password-reset code was issued; deliver it to the user');

/**
 * Kernel event (broadcast): sessions of a user, of a refresh-session family or of a whole company may have
 * ended or changed (logout, password change, deletion, profile or super flag change, company deactivation).
 * Every node forgets what it cached about them at once, so the next request or socket check reads the
 * truth (revocation holds within the bus's delivery time on every node), and disconnects the sockets that
 * are no longer live. Published by the kernel after the change commits; a plugin that changes users through
 * the identity service does not publish it itself.
 */
export interface SessionsChangedEvent {
  companyId?: number;
  userId?: number;
  /** A refresh-session family (the `sid` claim of access tokens issued from it). */
  familyId?: string;
}

/** The typed topic of `auth.sessions-changed` (kernel-owned). */
export const sessionsChanged = defineTopic<SessionsChangedEvent>('auth.sessions-changed', 'sessions of a user, family or company changed; cached session state is stale');
