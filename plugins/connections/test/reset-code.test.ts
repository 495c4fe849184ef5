import type { BusMessage, PasswordResetCodeEvent, SendCommand } from '@atendo/sdk';
import { createTestKernel, waitFor, type TestKernel, type TestUser } from '@atendo/testing';
import connectionsPlugin from '../src/index';
import { connectionsService, type Connection, type ConnectionsService } from '../src/contract';
import { deliverResetCode, pickResetConnection } from '../src/services/reset-code';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('connections plugin: password-reset codes (auth.reset-code-issued -> message.send)', () => {
  let k: TestKernel;
  let svc: ConnectionsService;
  const sends: BusMessage<SendCommand & Json>[] = [];
  let n = 0;

  beforeAll(async () => {
    k = await createTestKernel({ plugins: [connectionsPlugin] });
    svc = k.services.get(connectionsService);
    await k.bus.subscribe<SendCommand & Json>('message.send.*', (m) => void sends.push(m), { broadcast: true });
  });
  afterAll(() => k.close());

  async function connection(who: TestUser, body: Json = {}): Promise<number> {
    const res = await k.as(who, 'POST', '/whatsapp', { name: `Reset ${++n}`, ...body });
    expect(res.statusCode).toBe(200);
    return res.json().id;
  }
  /** Asks a code for a new user of `companyId`; returns the user and the reset answer. */
  async function ask(companyId: number, wpp: string): Promise<void> {
    const u = await k.createUser(companyId);
    await k.db('users').where({ id: u.id }).update({ wpp });
    const res = await k.app.inject({ method: 'POST', url: '/api/enviar-email', payload: { wpp } });
    expect(res.statusCode).toBe(200);
  }

  test('company 1 without a connected WhatsApp connection: nothing is sent; another company\'s connection is never used', async () => {
    const b = await k.createCompany();
    const foreign = await connection(b.admin);
    await svc.updateStatus(b.companyId, foreign, { status: 'CONNECTED' });
    const idle = await connection(k.superAdmin); // company 1's default, DISCONNECTED
    expect((await svc.get(1, idle))!.isDefault).toBe(true);
    await ask(b.companyId, '5511976540001');
    await new Promise((r) => setTimeout(r, 200));
    expect(sends).toEqual([]);
  });

  test('the code goes out as message.send from company 1\'s connected connection, messageId/ticketId 0; the default wins', async () => {
    const [def] = (await svc.list(1)).filter((c) => c.isDefault);
    const other = await connection(k.superAdmin);
    await svc.updateStatus(1, other, { status: 'CONNECTED' });
    const { companyId } = await k.createCompany();
    await ask(companyId, '(11) 97654-0002');
    await waitFor(() => sends.length === 1);
    const cmd = sends[0].payload;
    expect(cmd).toMatchObject({ companyId: 1, messageId: 0, ticketId: 0, connectionId: other, channel: 'whatsapp', to: '5511976540002', isGroup: false });
    expect(cmd.body).toMatch(/\b\d{6}\b/);
    // Once the default is connected too, it is preferred.
    await svc.updateStatus(1, def.id, { status: 'CONNECTED' });
    await ask(companyId, '5511976540003');
    await waitFor(() => sends.length === 2);
    expect(sends[1].payload).toMatchObject({ companyId: 1, messageId: 0, connectionId: def.id, to: '5511976540003' });
    // The code in the message is the one that verifies.
    const code = /\b(\d{6})\b/.exec(String(sends[1].payload.body))![1];
    const ok = await k.app.inject({ method: 'GET', url: `/api/verificar-code/5511976540003?code=${code}` });
    expect(ok.statusCode).toBe(200);
  });

  test('pickResetConnection: only CONNECTED whatsapp/whatsappapi connections, default first, then oldest', () => {
    const c = (id: number, channel: string, status: string, isDefault = false) => ({ id, channel, status, isDefault }) as Connection;
    expect(pickResetConnection([c(1, 'facebook', 'CONNECTED', true), c(2, 'instagram', 'CONNECTED')])).toBeUndefined();
    expect(pickResetConnection([c(1, 'whatsapp', 'qrcode', true), c(3, 'whatsappapi', 'CONNECTED'), c(2, 'whatsapp', 'CONNECTED')])!.id).toBe(2);
    expect(pickResetConnection([c(2, 'whatsapp', 'CONNECTED'), c(5, 'whatsappapi', 'CONNECTED', true)])!.id).toBe(5);
  });

  test('no connection: a warning; the code itself is logged only with logCodes (DEV_LOG_RESET_CODES); malformed events are refused', async () => {
    const event: PasswordResetCodeEvent = { companyId: 2, userId: 9, to: '5511976540004', code: '123456', text: 'code 123456', expiresAt: new Date().toISOString() };
    const m = { id: 'x', topic: 'auth.reset-code-issued', payload: event, headers: {}, publishedAt: '', attempt: 1 };
    const run = async (logCodes: boolean) => {
      const warn = jest.fn();
      const bus = { publish: jest.fn() };
      const out = await deliverResetCode({ bus: bus as never, log: { warn, info: jest.fn() } as never, connections: { list: async () => [] }, logCodes }, m);
      expect(out).toBeUndefined();
      expect(bus.publish).not.toHaveBeenCalled();
      expect(warn).toHaveBeenCalledTimes(1);
      return JSON.stringify(warn.mock.calls[0]);
    };
    expect(await run(true)).toContain('123456');
    expect(await run(false)).not.toContain('123456');
    // With a connection: sent, and the code is in the log only when asked for.
    const sent = async (logCodes: boolean) => {
      const info = jest.fn();
      const bus = { publish: jest.fn(async () => undefined) };
      const conn = { id: 7, channel: 'whatsappapi', status: 'CONNECTED', isDefault: true } as Connection;
      const out = await deliverResetCode({ bus: bus as never, log: { warn: jest.fn(), info } as never, connections: { list: async () => [conn] }, logCodes }, m);
      expect(out).toMatchObject({ connectionId: 7, to: '5511976540004', messageId: 0, ticketId: 0 });
      return JSON.stringify(info.mock.calls);
    };
    expect(await sent(true)).toContain('123456');
    expect(await sent(false)).not.toContain('123456');
    await expect(deliverResetCode({ bus: {} as never, log: {} as never, connections: { list: async () => [] }, logCodes: false }, { ...m, payload: { ...event, to: 'nope' } })).rejects.toThrow(/malformed/);
  });
});

describe('password-reset codes stay out of the log unless DEV_LOG_RESET_CODES asks for them', () => {
  /** A kernel as `NODE_ENV` defaults it (development), logging at info into `lines`, asked for one code. */
  async function codeAndLog(env: Record<string, string>): Promise<{ code: string; log: string }> {
    const lines: string[] = [];
    const k = await createTestKernel({ plugins: [connectionsPlugin], env: { NODE_ENV: 'development', LOG_LEVEL: 'info', ...env }, logStream: { write: (l: string) => void lines.push(l) } });
    try {
      const codes: string[] = [];
      await k.bus.subscribe<PasswordResetCodeEvent>('auth.reset-code-issued', (m) => void codes.push(m.payload.code), { broadcast: true });
      const u = await k.createUser(1);
      await k.db('users').where({ id: u.id }).update({ wpp: '5511976549999' });
      const res = await k.app.inject({ method: 'POST', url: '/api/enviar-email', payload: { wpp: '5511976549999' } });
      expect(res.statusCode).toBe(200);
      await waitFor(() => codes.length === 1);
      // The delivery consumer has run (it logs a warning: company 1 has no connected WhatsApp connection).
      await waitFor(() => lines.some((l) => l.includes('password reset: no connected WhatsApp connection')));
      return { code: codes[0], log: lines.join('') };
    } finally {
      await k.close();
    }
  }

  test('by default (NODE_ENV=development, no flag) the code is in no log line', async () => {
    const { code, log } = await codeAndLog({});
    expect(code).toMatch(/^\d{6}$/);
    expect(log).not.toContain(code);
  });

  test('DEV_LOG_RESET_CODES=true (npm start\'s demo) logs it; under NODE_ENV=production it is ignored', async () => {
    const dev = await codeAndLog({ DEV_LOG_RESET_CODES: 'true' });
    expect(dev.log).toContain(dev.code);
    const prod = await codeAndLog({ DEV_LOG_RESET_CODES: 'true', NODE_ENV: 'production' });
    expect(prod.log).not.toContain(prod.code);
  });
});
