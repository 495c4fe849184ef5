import { createTestKernel, collectEvents, nextEvent, type TestKernel, type TestUser } from '@atendo/testing';
import { COMPANY_SETTING_DEFAULTS, SETTING_DEFAULTS } from '@atendo/core/src/identity/defaults';

describe('settings', () => {
  let k: TestKernel;
  let a: { companyId: number; admin: TestUser };
  let b: { companyId: number; admin: TestUser };
  let aUser: TestUser;

  beforeAll(async () => {
    k = await createTestKernel();
    a = await k.createCompany({ name: 'Settings A' });
    b = await k.createCompany({ name: 'Settings B' });
    aUser = await k.createUser(a.companyId, { profile: 'user' });
  });
  afterAll(() => k.close());

  describe('legacy /settings', () => {
    // Legacy keys shared with the company settings (scheduleType, chatBotType) change those too: the next
    // block starts from the defaults again.
    afterAll(async () => {
      await k.db('settings').where({ companyId: a.companyId }).del();
      await k.db('companySettings').where({ companyId: a.companyId }).del();
      k.identity.invalidateSettings(a.companyId);
    });

    test('GET /settings lists every known key with its default for a company without rows', async () => {
      const res = await k.as(aUser, 'GET', '/settings');
      expect(res.statusCode).toBe(200);
      const list = res.json() as { key: string; value: string; companyId: number; id?: number }[];
      expect(list.map((s) => s.key).sort()).toEqual(Object.keys(SETTING_DEFAULTS).sort());
      for (const s of list) {
        expect(s.companyId).toBe(a.companyId);
        expect(s.value).toBe(SETTING_DEFAULTS[s.key]);
        expect(s.id).toBeUndefined();
      }
    });

    test('GET /settings/:key answers one setting; unknown keys answer 404 ERR_NO_SETTING_FOUND', async () => {
      const one = await k.as(aUser, 'GET', '/settings/userRating');
      expect(one.statusCode).toBe(200);
      expect(one.json()).toEqual({ key: 'userRating', value: 'disabled', companyId: a.companyId });
      for (const key of ['nope', 'constructor', '__proto__', 'hasOwnProperty']) {
        const res = await k.as(aUser, 'GET', `/settings/${key}`);
        expect(res.statusCode).toBe(404);
        expect(res.json().error).toBe('ERR_NO_SETTING_FOUND');
      }
    });

    test('admin PUT upserts, answers the setting, and GET shows it (other keys keep defaults)', async () => {
      const put = await k.as(a.admin, 'PUT', '/settings/userRating', { key: 'userRating', value: 'enabled' });
      expect(put.statusCode).toBe(200);
      const setting = put.json();
      expect(setting).toMatchObject({ key: 'userRating', value: 'enabled', companyId: a.companyId });
      expect(Number.isInteger(setting.id)).toBe(true);
      expect(typeof setting.createdAt).toBe('string');
      expect(Number.isNaN(Date.parse(setting.updatedAt))).toBe(false);

      const again = await k.as(a.admin, 'PUT', '/settings/userRating', { value: 'disabled' });
      expect(again.statusCode).toBe(200);
      expect(again.json()).toMatchObject({ id: setting.id, value: 'disabled' });
      expect(await k.db('settings').where({ companyId: a.companyId, key: 'userRating' }).count({ n: '*' }).first()).toEqual({ n: 1 });

      const list = (await k.as(aUser, 'GET', '/settings')).json() as { key: string; value: string; id?: number }[];
      expect(list.find((s) => s.key === 'userRating')).toMatchObject({ id: setting.id, value: 'disabled' });
      expect(list.find((s) => s.key === 'call')).toEqual({ key: 'call', value: 'disabled', companyId: a.companyId });
      expect(list).toHaveLength(Object.keys(SETTING_DEFAULTS).length);
    });

    test('PUT validates: enumerated values, unknown keys 404, wrong types and oversized values 400', async () => {
      const bad = await k.as(a.admin, 'PUT', '/settings/scheduleType', { value: 'sometimes' });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().error).toBe('ERR_VALIDATION');
      const ok = await k.as(a.admin, 'PUT', '/settings/scheduleType', { value: 'queue' });
      expect(ok.statusCode).toBe(200);
      const unknown = await k.as(a.admin, 'PUT', '/settings/whatever', { value: 'enabled' });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json().error).toBe('ERR_NO_SETTING_FOUND');
      const proto = await k.as(a.admin, 'PUT', '/settings/constructor', { value: 'enabled' });
      expect(proto.statusCode).toBe(404);
      for (const body of [{}, { value: { x: 1 } }, { value: ['a', 'b'] }, { value: 'x'.repeat(5001) }, [1, 2]]) {
        const res = await k.as(a.admin, 'PUT', '/settings/call', body);
        expect(res.statusCode).toBe(400);
        expect(res.json().error).toBe('ERR_VALIDATION');
      }
      const longKey = await k.as(a.admin, 'PUT', `/settings/${'k'.repeat(101)}`, { value: 'enabled' });
      expect(longKey.statusCode).toBe(400);
      expect(longKey.json().error).toBe('ERR_VALIDATION');
      const badUrl = await k.as(a.admin, 'GET', '/settings/%E0%A4%A');
      expect(badUrl.statusCode).toBe(400);
      expect(badUrl.json().error).toBe('ERR_VALIDATION');
      expect(await k.db('settings').where({ companyId: a.companyId, key: 'call' }).first()).toBeUndefined();
    });

    test('roles: a user cannot PUT; an admin cannot set userCreation; a super can', async () => {
      const user = await k.as(aUser, 'PUT', '/settings/call', { value: 'enabled' });
      expect(user.statusCode).toBe(403);
      expect(user.json().error).toBe('ERR_NO_PERMISSION');
      const supervisor = await k.createUser(a.companyId, { profile: 'supervisor' });
      expect((await k.as(supervisor, 'PUT', '/settings/call', { value: 'enabled' })).statusCode).toBe(403);
      const admin = await k.as(a.admin, 'PUT', '/settings/userCreation', { value: 'disabled' });
      expect(admin.statusCode).toBe(403);
      expect(admin.json().error).toBe('ERR_NO_PERMISSION');
      expect(await k.db('settings').where({ key: 'userCreation' }).first()).toBeUndefined();

      const sup = await k.as(k.superAdmin, 'PUT', '/settings/userCreation', { value: 'disabled' });
      expect(sup.statusCode).toBe(200);
      expect(sup.json()).toMatchObject({ key: 'userCreation', value: 'disabled', companyId: 1 });
      // The platform's userCreation is what sign-up reads.
      const signup = await k.app.inject({
        method: 'POST',
        url: '/auth/signup',
        payload: { companyName: 'Blocked Co', name: 'Blocked', email: 'blocked@example.com', password: 'secret1', planId: (await k.db('plans').where({ isPublic: true }).first('id')).id },
      });
      expect(signup.statusCode).toBe(403);
      expect(signup.json().error).toBe('ERR_USER_CREATION_DISABLED');
      expect((await k.as(k.superAdmin, 'PUT', '/settings/userCreation', { value: 'enabled' })).statusCode).toBe(200);
    });

    test('no token: 401; company B never sees or changes company A legacy settings', async () => {
      expect((await k.as(null, 'GET', '/settings')).statusCode).toBe(401);
      expect((await k.as(null, 'PUT', '/settings/call', { value: 'enabled' })).statusCode).toBe(401);
      await k.as(a.admin, 'PUT', '/settings/chatBotType', { value: 'list' });
      const bList = (await k.as(b.admin, 'GET', '/settings')).json() as { key: string; value: string; companyId: number }[];
      expect(bList.every((s) => s.companyId === b.companyId)).toBe(true);
      expect(bList.find((s) => s.key === 'chatBotType')?.value).toBe('text');
      expect((await k.as(b.admin, 'GET', '/settings/chatBotType')).json()).toEqual({ key: 'chatBotType', value: 'text', companyId: b.companyId });

      const bPut = await k.as(b.admin, 'PUT', '/settings/chatBotType', { value: 'button', companyId: a.companyId });
      expect(bPut.statusCode).toBe(200);
      expect(bPut.json().companyId).toBe(b.companyId);
      expect((await k.as(a.admin, 'GET', '/settings/chatBotType')).json()).toMatchObject({ value: 'list', companyId: a.companyId });
    });
  });

  describe('company settings', () => {
    test('the per-node settings cache: a write through the routes holds at once, for this company only; a settings event from any node clears it', async () => {
      const read = (companyId: number) => k.identity.getCompanySetting(companyId, 'userRandom');
      expect(await read(a.companyId)).toBe(COMPANY_SETTING_DEFAULTS.userRandom);
      expect((await k.as(a.admin, 'PUT', '/companySettings', { column: 'userRandom', data: 'enabled' })).statusCode).toBe(200);
      expect(await read(a.companyId)).toBe('enabled');
      expect(await read(b.companyId)).toBe(COMPANY_SETTING_DEFAULTS.userRandom);
      // A direct write (another node's, say) is served from the cache until that node's settings event arrives.
      await k.db('companySettings').where({ companyId: a.companyId, key: 'userRandom' }).update({ value: 'disabled' });
      expect(await read(a.companyId)).toBe('enabled');
      k.realtime.emitToCompany(a.companyId, `company-${a.companyId}-settings`, { action: 'update', setting: { key: 'userRandom', value: 'disabled' } });
      expect(await read(a.companyId)).toBe('disabled');
      expect((await k.identity.getCompanySettings(a.companyId)).userRandom).toBe('disabled');
      await k.db('companySettings').where({ companyId: a.companyId, key: 'userRandom' }).del();
      k.identity.invalidateSettings(a.companyId);
    });

    test('GET /companySettings/:id answers the defaults object of the caller company', async () => {
      const res = await k.as(aUser, 'GET', `/companySettings/${a.companyId}`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ id: a.companyId, companyId: a.companyId, ...COMPANY_SETTING_DEFAULTS });
      const alias = await k.as(aUser, 'GET', '/companySettings');
      expect(alias.statusCode).toBe(200);
      expect(alias.json()).toEqual(res.json());
    });

    test('GET /companySettingOne answers a single-key object; unknown columns 404; missing column 400', async () => {
      const one = await k.as(aUser, 'GET', '/companySettingOne?column=sendSignMessage');
      expect(one.statusCode).toBe(200);
      expect(one.json()).toEqual({ sendSignMessage: 'enabled' });
      for (const column of ['nope', 'id', 'companyId', 'constructor']) {
        const res = await k.as(aUser, 'GET', `/companySettingOne?column=${column}`);
        expect(res.statusCode).toBe(404);
        expect(res.json().error).toBe('ERR_NO_SETTING_FOUND');
      }
      const missing = await k.as(aUser, 'GET', '/companySettingOne');
      expect(missing.statusCode).toBe(400);
      expect(missing.json().error).toBe('ERR_VALIDATION');
    });

    test('admin PUT /companySettings updates one key and answers {response, result}', async () => {
      const res = await k.as(a.admin, 'PUT', '/companySettings', { column: 'scheduleType', data: 'company' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ response: true, result: { id: a.companyId, companyId: a.companyId, ...COMPANY_SETTING_DEFAULTS, scheduleType: 'company' } });
      const again = await k.as(a.admin, 'PUT', '/companySettings', { column: 'scheduleType', data: 'queue' });
      expect(again.json().result.scheduleType).toBe('queue');
      expect(await k.db('companySettings').where({ companyId: a.companyId, key: 'scheduleType' }).count({ n: '*' }).first()).toEqual({ n: 1 });
      expect((await k.as(aUser, 'GET', '/companySettingOne?column=scheduleType')).json()).toEqual({ scheduleType: 'queue' });
      const text = await k.as(a.admin, 'PUT', '/companySettings', { column: 'lgpdMessage', data: 'Aceita os termos? ' + 'x'.repeat(4000) });
      expect(text.statusCode).toBe(200);
      expect(text.json().result.lgpdMessage).toHaveLength(18 + 4000);
    });

    test('PUT /companySettings validates enumerations, unknown columns, types and length', async () => {
      const cases: [unknown, number, string][] = [
        [{ column: 'scheduleType', data: 'weekly' }, 400, 'ERR_VALIDATION'],
        [{ column: 'chatBotType', data: 'carousel' }, 400, 'ERR_VALIDATION'],
        [{ column: 'sendSignMessage', data: 'yes' }, 400, 'ERR_VALIDATION'],
        [{ column: 'campaignsEnabled', data: 'enabled' }, 400, 'ERR_VALIDATION'],
        [{ column: 'lgpdMessage', data: 'x'.repeat(5001) }, 400, 'ERR_VALIDATION'],
        [{ column: 'lgpdMessage', data: { a: 1 } }, 400, 'ERR_VALIDATION'],
        [{ column: 'lgpdMessage' }, 400, 'ERR_VALIDATION'],
        [{ data: 'enabled' }, 400, 'ERR_VALIDATION'],
        [['scheduleType', 'company'], 400, 'ERR_VALIDATION'],
        [{ column: 'notASetting', data: 'enabled' }, 404, 'ERR_NO_SETTING_FOUND'],
        [{ column: 'id', data: '5' }, 404, 'ERR_NO_SETTING_FOUND'],
        [{ column: 'companyId', data: '5' }, 404, 'ERR_NO_SETTING_FOUND'],
      ];
      for (const [body, status, code] of cases) {
        const res = await k.as(a.admin, 'PUT', '/companySettings', body);
        expect({ body, status: res.statusCode, code: res.json().error }).toEqual({ body, status, code });
      }
      expect((await k.as(a.admin, 'PUT', '/companySettings', { column: 'campaignsEnabled', data: 'true' })).statusCode).toBe(200);
      expect((await k.as(a.admin, 'PUT', '/companySettings', { column: 'chatBotType', data: 'list' })).statusCode).toBe(200);
      expect((await k.as(a.admin, 'PUT', '/companySettings', { column: 'hoursCloseTicketsAuto', data: '48' })).statusCode).toBe(200);
      const rows = await k.db('companySettings').where({ companyId: a.companyId }).whereIn('key', ['notASetting', 'id', 'companyId', 'sendSignMessage']);
      expect(rows).toEqual([]);
    });

    test('roles: a user or supervisor cannot PUT /companySettings; no token is 401', async () => {
      const supervisor = await k.createUser(a.companyId, { profile: 'supervisor' });
      for (const u of [aUser, supervisor]) {
        const res = await k.as(u, 'PUT', '/companySettings', { column: 'userRandom', data: 'enabled' });
        expect(res.statusCode).toBe(403);
        expect(res.json().error).toBe('ERR_NO_PERMISSION');
      }
      expect((await k.as(null, 'GET', `/companySettings/${a.companyId}`)).statusCode).toBe(401);
      expect((await k.as(null, 'GET', '/companySettingOne?column=userRandom')).statusCode).toBe(401);
      expect((await k.as(null, 'PUT', '/companySettings', { column: 'userRandom', data: 'enabled' })).statusCode).toBe(401);
      expect(await k.db('companySettings').where({ companyId: a.companyId, key: 'userRandom' }).first()).toBeUndefined();
    });

    test("company B never sees or changes company A's settings, even through the ignored path id", async () => {
      await k.as(a.admin, 'PUT', '/companySettings', { column: 'requiredTag', data: 'enabled' });
      const viaPath = await k.as(b.admin, 'GET', `/companySettings/${a.companyId}`);
      expect(viaPath.statusCode).toBe(200);
      expect(viaPath.json()).toMatchObject({ id: b.companyId, companyId: b.companyId, requiredTag: 'disabled' });
      for (const junk of ['abc', '0', '-1', '99999999999']) {
        const res = await k.as(b.admin, 'GET', `/companySettings/${junk}`);
        expect(res.statusCode).toBe(200);
        expect(res.json().companyId).toBe(b.companyId);
      }
      expect((await k.as(b.admin, 'GET', '/companySettingOne?column=requiredTag')).json()).toEqual({ requiredTag: 'disabled' });

      const put = await k.as(b.admin, 'PUT', '/companySettings', { column: 'requiredTag', data: 'disabled', companyId: a.companyId });
      expect(put.statusCode).toBe(200);
      expect(put.json().result.companyId).toBe(b.companyId);
      expect((await k.as(a.admin, 'GET', '/companySettingOne?column=requiredTag')).json()).toEqual({ requiredTag: 'enabled' });
      expect((await k.as(aUser, 'GET', `/companySettings/${b.companyId}`)).json()).toMatchObject({ companyId: a.companyId, requiredTag: 'enabled' });
    });
  });

  describe('keys that are both (scheduleType, userRating, ...)', () => {
    test('PUT /settings/scheduleType and PUT /companySettings change one value, per company', async () => {
      const legacy = await k.as(a.admin, 'PUT', '/settings/scheduleType', { key: 'scheduleType', value: 'company' });
      expect(legacy.statusCode).toBe(200);
      expect((await k.as(aUser, 'GET', '/companySettingOne?column=scheduleType')).json()).toEqual({ scheduleType: 'company' });
      expect((await k.as(a.admin, 'GET', '/companySettings')).json().scheduleType).toBe('company');

      const viaCompany = await k.as(a.admin, 'PUT', '/companySettings', { column: 'scheduleType', data: 'queue' });
      expect(viaCompany.statusCode).toBe(200);
      expect((await k.as(aUser, 'GET', '/settings/scheduleType')).json()).toMatchObject({ key: 'scheduleType', value: 'queue', companyId: a.companyId });
      const list = (await k.as(aUser, 'GET', '/settings')).json() as { key: string; value: string }[];
      expect(list.find((s) => s.key === 'scheduleType')?.value).toBe('queue');
      expect(await k.db('settings').where({ companyId: a.companyId, key: 'scheduleType' }).first('value')).toEqual({ value: 'queue' });

      // userRating alike; a refused value changes neither table.
      await k.as(a.admin, 'PUT', '/companySettings', { column: 'userRating', data: 'enabled' });
      expect((await k.as(a.admin, 'GET', '/settings/userRating')).json().value).toBe('enabled');
      expect((await k.as(a.admin, 'PUT', '/settings/scheduleType', { value: 'sometimes' })).statusCode).toBe(400);
      expect((await k.as(a.admin, 'GET', '/companySettingOne?column=scheduleType')).json()).toEqual({ scheduleType: 'queue' });

      // The company's time zone (opening hours and the bot's clock) is an IANA name.
      expect((await k.as(a.admin, 'GET', '/companySettingOne?column=timeZone')).json()).toEqual({ timeZone: 'America/Sao_Paulo' });
      expect((await k.as(a.admin, 'PUT', '/companySettings', { column: 'timeZone', data: 'Europe/Lisbon' })).statusCode).toBe(200);
      for (const bad of ['Mars/Olympus', 'GMT+3; DROP TABLE', '']) {
        expect((await k.as(a.admin, 'PUT', '/companySettings', { column: 'timeZone', data: bad })).statusCode).toBe(400);
      }
      expect((await k.as(a.admin, 'GET', '/companySettingOne?column=timeZone')).json()).toEqual({ timeZone: 'Europe/Lisbon' });
      expect((await k.as(b.admin, 'GET', '/companySettingOne?column=timeZone')).json()).toEqual({ timeZone: 'America/Sao_Paulo' });

      // Company B is untouched by all of it.
      expect((await k.as(b.admin, 'GET', '/companySettingOne?column=scheduleType')).json()).toEqual({ scheduleType: 'disabled' });
      expect((await k.as(b.admin, 'GET', '/settings/scheduleType')).json().value).toBe('disabled');
      expect((await k.as(b.admin, 'GET', '/settings/userRating')).json().value).toBe('disabled');
    });
  });

  describe('realtime', () => {
    test('company-{id}-settings reaches the own company only, for both PUTs', async () => {
      const base = await k.listen();
      const sa = await k.socket(aUser.token, base);
      const sb = await k.socket(b.admin.token, base);
      try {
        const bGotA = collectEvents(sb, `company-${a.companyId}-settings`, 600);
        const bGotOwn = collectEvents(sb, `company-${b.companyId}-settings`, 600);

        const legacy = nextEvent<{ action: string; setting: Record<string, unknown> }>(sa, `company-${a.companyId}-settings`);
        expect((await k.as(a.admin, 'PUT', '/settings/call', { value: 'enabled' })).statusCode).toBe(200);
        const ev1 = await legacy;
        expect(ev1.action).toBe('update');
        expect(ev1.setting).toMatchObject({ key: 'call', value: 'enabled', companyId: a.companyId });

        const company = nextEvent<{ action: string; setting: unknown }>(sa, `company-${a.companyId}-settings`);
        expect((await k.as(a.admin, 'PUT', '/companySettings', { column: 'userRandom', data: 'enabled' })).statusCode).toBe(200);
        expect(await company).toEqual({ action: 'update', setting: { key: 'userRandom', value: 'enabled' } });

        expect(await bGotA).toEqual([]);
        expect(await bGotOwn).toEqual([]);
      } finally {
        sa.close();
        sb.close();
      }
    });

    test('a refused PUT emits nothing', async () => {
      const base = await k.listen();
      const sa = await k.socket(a.admin.token, base);
      try {
        const got = collectEvents(sa, `company-${a.companyId}-settings`, 400);
        expect((await k.as(a.admin, 'PUT', '/companySettings', { column: 'scheduleType', data: 'never' })).statusCode).toBe(400);
        expect((await k.as(a.admin, 'PUT', '/settings/userCreation', { value: 'enabled' })).statusCode).toBe(403);
        expect(await got).toEqual([]);
      } finally {
        sa.close();
      }
    });
  });
});
