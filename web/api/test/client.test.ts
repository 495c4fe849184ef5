import { createHttpClient, HttpError, type HttpClientOptions } from '../src/client';

type Call = { url: string; method: string; headers: Record<string, string>; body?: string; credentials?: string };

function json(status: number, body?: unknown): Response {
  return new Response(body === undefined ? null : JSON.stringify(body), { status, headers: body === undefined ? {} : { 'content-type': 'application/json' } });
}

/**
 * A fake API: `/auth/refresh_token` answers `refresh()`; every other path answers `resource(call)`. Resolves
 * asynchronously (like the network) so concurrent requests overlap.
 */
function fakeApi(opts: { resource: (call: Call) => Response; refresh?: () => Response }) {
  const calls: Call[] = [];
  let refreshes = 0;
  const fetchImpl = jest.fn(async (url: string, init: RequestInit) => {
    const call: Call = { url, method: String(init.method), headers: { ...(init.headers as Record<string, string>) }, body: init.body as string | undefined, credentials: init.credentials };
    calls.push(call);
    await new Promise((r) => setTimeout(r, 5));
    if (url.endsWith('/auth/refresh_token')) {
      refreshes++;
      return opts.refresh ? opts.refresh() : json(200, { token: `fresh-${refreshes}`, user: { id: 7, companyId: 3, name: 'U', email: 'u@x.io', profile: 'user', super: false } });
    }
    return opts.resource(call);
  });
  return { calls, fetchImpl, refreshes: () => refreshes };
}

function client(api: ReturnType<typeof fakeApi>, token: string | null = 'old') {
  const state = { token, signedOut: 0, refreshed: [] as string[] };
  const options: HttpClientOptions = {
    baseUrl: 'http://api.test/',
    fetch: api.fetchImpl as unknown as typeof fetch,
    getToken: () => state.token,
    setToken: (t) => {
      state.token = t;
    },
    clearToken: () => {
      state.token = null;
    },
    onRefreshed: (a) => state.refreshed.push(a.token),
    onSignedOut: () => {
      state.signedOut++;
    },
  };
  return { http: createHttpClient(options), state };
}

const resourceCalls = (api: ReturnType<typeof fakeApi>) => api.calls.filter((c) => !c.url.endsWith('/auth/refresh_token'));

describe('HTTP client', () => {
  test('sends the bearer token, cookies and a JSON body; resolves the parsed answer', async () => {
    const api = fakeApi({ resource: () => json(200, { ok: 1 }) });
    const { http } = client(api, 'tok-1');
    await expect(http.put('/users/5', { name: 'Ana' }, { query: { a: 1, skip: undefined } })).resolves.toEqual({ ok: 1 });
    expect(api.calls).toHaveLength(1);
    expect(api.calls[0]).toMatchObject({ url: 'http://api.test/users/5?a=1', method: 'PUT', credentials: 'include', body: '{"name":"Ana"}' });
    expect(api.calls[0].headers.Authorization).toBe('Bearer tok-1');
    expect(api.calls[0].headers['Content-Type']).toBe('application/json');
  });

  test('a 403 triggers exactly one refresh and one retry with the new token', async () => {
    const api = fakeApi({ resource: (c) => (c.headers.Authorization === 'Bearer fresh-1' ? json(200, { id: 1 }) : json(403, { error: 'ERR_INVALID_TOKEN' })) });
    const { http, state } = client(api);
    await expect(http.get('/tickets')).resolves.toEqual({ id: 1 });
    expect(api.refreshes()).toBe(1);
    expect(resourceCalls(api).map((c) => c.headers.Authorization)).toEqual(['Bearer old', 'Bearer fresh-1']);
    const refresh = api.calls.find((c) => c.url.endsWith('/auth/refresh_token'))!;
    expect(refresh).toMatchObject({ method: 'POST', credentials: 'include' });
    expect(refresh.headers.Authorization).toBeUndefined();
    expect(state.token).toBe('fresh-1');
    expect(state.refreshed).toEqual(['fresh-1']);
    expect(state.signedOut).toBe(0);
  });

  test('retries only once: a second 403 rejects without another refresh', async () => {
    const api = fakeApi({ resource: () => json(403, { error: 'ERR_NO_PERMISSION', message: 'No permission' }) });
    const { http, state } = client(api);
    const err = await http.get('/users').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpError);
    expect((err as HttpError).status).toBe(403);
    expect((err as HttpError).response.data).toEqual({ error: 'ERR_NO_PERMISSION', message: 'No permission' });
    expect(api.refreshes()).toBe(1);
    expect(resourceCalls(api)).toHaveLength(2);
    expect(state.signedOut).toBe(0);
  });

  test('a 403 ERR_SUBSCRIPTION_EXPIRED is not refreshed nor retried, and calls onSubscriptionExpired', async () => {
    const api = fakeApi({ resource: () => json(403, { error: 'ERR_SUBSCRIPTION_EXPIRED', message: 'expired' }) });
    let expired = 0;
    const http = createHttpClient({
      baseUrl: 'http://api.test',
      fetch: api.fetchImpl as unknown as typeof fetch,
      getToken: () => 'old',
      setToken: () => undefined,
      clearToken: () => undefined,
      onSubscriptionExpired: () => {
        expired++;
      },
    });
    const err = await http.get('/users').catch((e: unknown) => e);
    expect((err as HttpError).code).toBe('ERR_SUBSCRIPTION_EXPIRED');
    expect(api.refreshes()).toBe(0);
    expect(resourceCalls(api)).toHaveLength(1);
    expect(expired).toBe(1);
  });

  test('concurrent 403s share one refresh, and each request is retried once', async () => {
    const api = fakeApi({ resource: (c) => (c.headers.Authorization === 'Bearer fresh-1' ? json(200, { path: c.url }) : json(403, { error: 'ERR_INVALID_TOKEN' })) });
    const { http } = client(api);
    const answers = await Promise.all([http.get('/a'), http.get('/b'), http.post('/c', { x: 1 })]);
    expect(answers).toEqual([{ path: 'http://api.test/a' }, { path: 'http://api.test/b' }, { path: 'http://api.test/c' }]);
    expect(api.refreshes()).toBe(1);
    expect(resourceCalls(api)).toHaveLength(6);
  });

  test('a request whose token was already replaced is retried with the new one, without a refresh', async () => {
    let token = 'old';
    const api = fakeApi({
      resource: (c) => {
        if (c.headers.Authorization === 'Bearer old') {
          token = 'newer'; // another request refreshed meanwhile
          return json(403, { error: 'ERR_INVALID_TOKEN' });
        }
        return json(200, { with: c.headers.Authorization });
      },
    });
    const http = createHttpClient({ baseUrl: 'http://api.test', fetch: api.fetchImpl as unknown as typeof fetch, getToken: () => token, setToken: (t) => (token = t), clearToken: () => undefined });
    await expect(http.get('/x')).resolves.toEqual({ with: 'Bearer newer' });
    expect(api.refreshes()).toBe(0);
  });

  test('a 401 clears the token and signs out, without a refresh', async () => {
    const api = fakeApi({ resource: () => json(401, { error: 'ERR_SESSION_EXPIRED', message: 'Session expired' }) });
    const { http, state } = client(api);
    const err = (await http.get('/tickets').catch((e: unknown) => e)) as HttpError;
    expect(err.status).toBe(401);
    expect(err.code).toBe('ERR_SESSION_EXPIRED');
    expect(state.token).toBeNull();
    expect(state.signedOut).toBe(1);
    expect(api.refreshes()).toBe(0);
    expect(resourceCalls(api)).toHaveLength(1);
  });

  test('a refresh answered 401 signs out and rejects with that error; no retry', async () => {
    const api = fakeApi({ resource: () => json(403, { error: 'ERR_INVALID_TOKEN' }), refresh: () => json(401, { error: 'ERR_SESSION_EXPIRED' }) });
    const { http, state } = client(api);
    const err = (await http.get('/tickets').catch((e: unknown) => e)) as HttpError;
    expect(err.status).toBe(401);
    expect(err.path).toBe('/auth/refresh_token');
    expect(state.token).toBeNull();
    expect(state.signedOut).toBe(1);
    expect(resourceCalls(api)).toHaveLength(1);
  });

  test('a refresh failing otherwise (500) rejects with the original 403 and keeps the session', async () => {
    const api = fakeApi({ resource: () => json(403, { error: 'ERR_INVALID_TOKEN' }), refresh: () => json(500, { error: 'ERR_INTERNAL' }) });
    const { http, state } = client(api);
    const err = (await http.get('/tickets').catch((e: unknown) => e)) as HttpError;
    expect(err.status).toBe(403);
    expect(err.code).toBe('ERR_INVALID_TOKEN');
    expect(state.token).toBe('old');
    expect(state.signedOut).toBe(0);
  });

  test('public calls (auth: false) send no token and never refresh or sign out', async () => {
    const api = fakeApi({ resource: () => json(401, { error: 'ERR_INVALID_CREDENTIALS' }) });
    const { http, state } = client(api, 'tok');
    const err = (await http.post('/auth/login', { email: 'a@b.c', password: 'x' }, { auth: false }).catch((e: unknown) => e)) as HttpError;
    expect(err.status).toBe(401);
    expect(api.calls[0].headers.Authorization).toBeUndefined();
    expect(state.token).toBe('tok');
    expect(state.signedOut).toBe(0);
    expect(api.refreshes()).toBe(0);
  });

  test('network failures reject with status 0; empty answers resolve undefined', async () => {
    const failing = createHttpClient({ baseUrl: 'http://api.test', fetch: (async () => { throw new TypeError('Failed to fetch'); }) as unknown as typeof fetch, getToken: () => null, setToken: () => undefined, clearToken: () => undefined });
    const err = (await failing.get('/x').catch((e: unknown) => e)) as HttpError;
    expect(err).toBeInstanceOf(HttpError);
    expect(err.status).toBe(0);
    const api = fakeApi({ resource: () => new Response(null, { status: 204 }) });
    const { http } = client(api);
    await expect(http.delete('/auth/logout')).resolves.toBeUndefined();
  });
});
