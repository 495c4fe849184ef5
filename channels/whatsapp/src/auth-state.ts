import type { Knex } from 'knex';
import type { AuthenticationCreds, AuthenticationState, SignalDataSet, SignalDataTypeMap } from '@whiskeysockets/baileys';
import type { BaileysModule } from './baileys';

/**
 * Baileys auth state in PostgreSQL (DESIGN.md §4: not files). Table `baileys_auth` (owned by the
 * whatsapp-sessions plugin): one row per `(connection_id, key_type, key_id)`, `value` = the JSON text of the
 * value written with Baileys' `BufferJSON.replacer` (bytes survive as `{type: 'Buffer', data: base64}`).
 * The credentials are the row `('creds', 'creds')`; signal keys use their Baileys type (`pre-key`,
 * `session`, `sender-key`, `app-state-sync-key`, `lid-mapping`, ...) and id.
 *
 * Every `keys.set` call is written in ONE transaction (upserts and deletes of that call together), and calls
 * are applied in the order Baileys makes them (a per-connection queue that reads also wait on), so a crash
 * never leaves half of a key update and a read never sees an older value than the last write.
 */
export const AUTH_TABLE = 'baileys_auth';
const CREDS = 'creds';
/** Rows per INSERT statement. */
const CHUNK = 500;

/** The auth state of one connection plus its persistence. */
export interface PostgresAuthState {
  state: AuthenticationState;
  /** Writes the current `state.creds` (call on every `creds.update`, after merging the update). */
  saveCreds(): Promise<void>;
  /** Deletes every row of the connection (logout, bad session, new QR). */
  clear(): Promise<void>;
}

export interface AuthStateOptions {
  db: Knex;
  companyId: number;
  connectionId: number;
  baileys: Pick<BaileysModule, 'BufferJSON' | 'initAuthCreds' | 'proto'>;
}

/** Deletes the stored auth state of a connection (no socket needed). */
export async function clearAuthState(db: Knex, companyId: number, connectionId: number): Promise<number> {
  return db(AUTH_TABLE).where({ connectionId, companyId }).del();
}

/** True when the connection has stored credentials (it was paired at least once and not cleared since). */
export async function hasStoredCreds(db: Knex, companyId: number, connectionId: number): Promise<boolean> {
  return Boolean(await db(AUTH_TABLE).where({ connectionId, companyId, keyType: CREDS, keyId: CREDS }).first('keyId'));
}

/**
 * Loads (or initialises with `initAuthCreds()`) the auth state of a connection. The returned `state` is what
 * `makeWASocket({auth})` takes; `keys.get` answers only the ids found (missing ids are absent).
 */
export async function usePostgresAuthState(opts: AuthStateOptions): Promise<PostgresAuthState> {
  const { db, companyId, connectionId, baileys } = opts;
  const { BufferJSON, proto } = baileys;
  const encode = (v: unknown) => JSON.stringify(v, BufferJSON.replacer);
  const decode = (s: unknown) => JSON.parse(String(s), BufferJSON.reviver) as unknown;

  // One queue per state: writes apply in call order, reads wait for earlier writes.
  let tail: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = tail.then(fn, fn);
    tail = run.catch(() => undefined);
    return run;
  };

  const row = await db(AUTH_TABLE).where({ connectionId, companyId, keyType: CREDS, keyId: CREDS }).first('value');
  const creds: AuthenticationCreds = row ? (decode(row.value) as AuthenticationCreds) : baileys.initAuthCreds();

  const state: AuthenticationState = {
    creds,
    keys: {
      get: <T extends keyof SignalDataTypeMap>(type: T, ids: string[]) =>
        serial(async () => {
          const out: { [id: string]: SignalDataTypeMap[T] } = {};
          const wanted = [...new Set(ids.filter((id) => typeof id === 'string'))];
          for (let i = 0; i < wanted.length; i += CHUNK) {
            const rows = await db(AUTH_TABLE).where({ connectionId, companyId, keyType: type }).whereIn('keyId', wanted.slice(i, i + CHUNK)).select('keyId', 'value');
            for (const r of rows as { keyId: string; value: string }[]) {
              let value = decode(r.value);
              if (type === 'app-state-sync-key' && value) value = proto.Message.AppStateSyncKeyData.fromObject(value as object);
              out[r.keyId] = value as SignalDataTypeMap[T];
            }
          }
          return out;
        }),
      set: (data: SignalDataSet) =>
        serial(async () => {
          const upserts: Record<string, unknown>[] = [];
          const deletes = new Map<string, string[]>();
          for (const type of Object.keys(data) as (keyof SignalDataTypeMap)[]) {
            const entries = data[type] ?? {};
            for (const id of Object.keys(entries)) {
              const value = entries[id];
              if (value === null || value === undefined) deletes.set(type, [...(deletes.get(type) ?? []), id]);
              else upserts.push({ connectionId, companyId, keyType: type, keyId: id, value: encode(value), updatedAt: db.fn.now() });
            }
          }
          if (!upserts.length && !deletes.size) return;
          await db.transaction(async (trx) => {
            for (let i = 0; i < upserts.length; i += CHUNK) {
              await trx(AUTH_TABLE).insert(upserts.slice(i, i + CHUNK)).onConflict(['connectionId', 'keyType', 'keyId']).merge(['value', 'updatedAt']);
            }
            for (const [type, ids] of deletes) {
              for (let i = 0; i < ids.length; i += CHUNK) await trx(AUTH_TABLE).where({ connectionId, companyId, keyType: type }).whereIn('keyId', ids.slice(i, i + CHUNK)).del();
            }
          });
        }),
      clear: () => serial(async () => void (await db(AUTH_TABLE).where({ connectionId, companyId }).whereNot({ keyType: CREDS }).del())),
    },
  };

  return {
    state,
    saveCreds: () =>
      serial(async () => {
        await db(AUTH_TABLE)
          .insert({ connectionId, companyId, keyType: CREDS, keyId: CREDS, value: encode(state.creds), updatedAt: db.fn.now() })
          .onConflict(['connectionId', 'keyType', 'keyId'])
          .merge(['value', 'updatedAt']);
      }),
    clear: () => serial(async () => void (await clearAuthState(db, companyId, connectionId))),
  };
}
