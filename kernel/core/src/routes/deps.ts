import type { Knex } from 'knex';
import type { Bus } from '@atendo/sdk';
import type { KernelConfig } from '../config';
import type { Identity } from '../identity/service';
import type { RealtimeHub } from '../plugins/realtime';
import type { SessionStore } from '../auth/sessions';

/** What the kernel's own route modules receive. */
export interface CoreDeps {
  config: KernelConfig;
  db: Knex;
  bus: Bus;
  identity: Identity;
  realtime: RealtimeHub;
  sessions: SessionStore;
  version: string;
}
