import type { Knex } from 'knex';
import type { AuditService, Bus, Jobs, References } from '@atendo/sdk';
import type { KernelConfig } from '../config';
import type { Identity } from '../identity/service';
import type { RealtimeHub } from '../plugins/realtime';
import type { SessionStore } from '../auth/sessions';
import type { UploadStore } from '../uploads';
import type { RateLimits } from '../auth/rate-limit';
import type { SessionGuard } from '../auth/session-guard';

/** What the kernel's own route modules receive. */
export interface CoreDeps {
  config: KernelConfig;
  db: Knex;
  bus: Bus;
  identity: Identity;
  /** The append-only audit log (users, settings, plans and companies record their changes). */
  audit: AuditService;
  realtime: RealtimeHub;
  sessions: SessionStore;
  /** The kernel's own durable jobs (names `kernel.*`). */
  jobs: Jobs;
  version: string;
  /** Client-keyed limits shared by every node (the failed-login lockout). */
  rateLimits: RateLimits;
  /** Live-session checks; `changed(...)` after a change that ends or alters sessions (see SessionGuard). */
  guard: SessionGuard;
  /** Foreign ids of bodies (a user's `whatsappId`) checked by the plugin owning them; absent in tests that build routes alone. */
  references?: References;
  /** The upload store (profile pictures); absent in tests that build routes alone. */
  uploads?: UploadStore;
}
