import { createHmac, createVerify, generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestKernel, waitFor, type TestKernel } from '@atendo/testing';
import { errorCatalogue } from '@atendo/sdk';
import integrationsPlugin from '../src/index';
import { Fake, Graph, PLUGINS, sharedEnv, Tenant } from './harness';

/**
 * Queue integrations end to end: the CRUD (validation, secrets, SSRF refusals, tenant isolation), and
 * customers' messages reaching a local webhook / Typebot / Dialogflow stand-in and their answers reaching
 * the customer through a local Graph server; hand-offs and failures going to humans.
 */
describe('integrations plugin', () => {
  let k: TestKernel;
  const graph = new Graph();
  const hook = new Fake();
  const typebot = new Fake();
  const google = new Fake();
  beforeAll(async () => {
    await Promise.all([graph.start(), hook.start(), typebot.start(), google.start()]);
    k = await createTestKernel({
      plugins: [...PLUGINS(), integrationsPlugin],
      env: { ...sharedEnv(graph.url), INTEGRATIONS_ALLOW_HOSTS: '127.0.0.1', INTEGRATIONS_MAX_ATTEMPTS: '2', INTEGRATIONS_TIMEOUT_MS: '3000', INTEGRATIONS_DIALOGFLOW_URL: google.url },
    });
  });
  afterAll(async () => {
    await k?.close();
    await Promise.all([graph.stop(), hook.stop(), typebot.stop(), google.stop()]);
  });

  // A 1x1 PNG.
  const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
  const err = (res: { statusCode: number; json(): { error?: string } }) => ({ status: res.statusCode, error: res.json().error });

  test('CRUD: validation by type, secrets never answered, private URLs refused, tenant isolation, roles', async () => {
    const A = await Tenant.create(k, graph);
    const B = await Tenant.create(k, graph);
    const user = await k.createUser(A.companyId, { profile: 'user' });
    const created = await k.as(A.admin, 'POST', '/queueIntegration', { type: 'webhook', name: ' Pedidos ', urlN8N: `${hook.url}/hook` });
    expect(created.statusCode).toBe(200);
    const w = created.json();
    expect(w).toMatchObject({ type: 'webhook', name: 'Pedidos', projectName: 'Pedidos', urlN8N: `${hook.url}/hook`, typebotExpires: 1, typebotDelayMessage: 1000, companyId: A.companyId });
    expect(w.secret).toMatch(/^[\w-]{30,}$/);
    expect(w.secretHint).toBe(`…${w.secret.slice(-4)}`);
    const read = (await k.as(user, 'GET', `/queueIntegration/${w.id}`)).json();
    expect(read.secret).toBeUndefined();
    expect(JSON.stringify(read)).not.toContain(w.secret);

    for (const [body, code] of [
      [{ type: 'webhook', urlN8N: hook.url }, 'ERR_VALIDATION'],
      [{ type: 'n8n', name: 'x' }, 'ERR_VALIDATION'],
      [{ type: 'typebot', name: 'x', urlN8N: typebot.url }, 'ERR_VALIDATION'],
      [{ type: 'dialogflow', name: 'x', projectName: 'p', language: 'pt-BR', jsonContent: '{"nope":1}' }, 'ERR_VALIDATION'],
      [{ type: 'dialogflow', name: 'x', projectName: 'p', language: 'fr', jsonContent: '{}' }, 'ERR_VALIDATION'],
      [{ type: 'telegraph', name: 'x' }, 'ERR_VALIDATION'],
      [{ name: 'x' }, 'ERR_VALIDATION'],
      [{ type: 'webhook', name: 'x', urlN8N: 'http://10.0.0.7/hook' }, 'ERR_INTEGRATION_URL_NOT_ALLOWED'],
      [{ type: 'webhook', name: 'x', urlN8N: 'http://169.254.169.254/latest/meta-data' }, 'ERR_INTEGRATION_URL_NOT_ALLOWED'],
      [{ type: 'webhook', name: 'x', urlN8N: 'http://localhost:8080/' }, 'ERR_INTEGRATION_URL_NOT_ALLOWED'],
      [{ type: 'webhook', name: 'x', urlN8N: 'http://[::1]/' }, 'ERR_INTEGRATION_URL_NOT_ALLOWED'],
      [{ type: 'webhook', name: 'x', urlN8N: 'ftp://example.com/' }, 'ERR_INTEGRATION_URL_NOT_ALLOWED'],
      [{ type: 'webhook', name: 'x', urlN8N: 'https://u:p@example.com/' }, 'ERR_INTEGRATION_URL_NOT_ALLOWED'],
      [{ type: 'webhook', name: 'x', urlN8N: hook.url, secret: 'short' }, 'ERR_VALIDATION'],
    ] as const) {
      expect({ body, ...err(await k.as(A.admin, 'POST', '/queueIntegration', body)) }).toEqual({ body, status: 400, error: code });
    }
    expect((await k.as(user, 'POST', '/queueIntegration', { type: 'webhook', name: 'x', urlN8N: hook.url })).statusCode).toBe(403);

    // Dialogflow: the service-account JSON is stored, never answered; an empty one on update keeps it.
    const sa = JSON.stringify({ client_email: 'bot@p.iam.gserviceaccount.com', private_key: 'PRIVATE-KEY-TEXT', token_uri: `${google.url}/token` });
    const df = (await k.as(A.admin, 'POST', '/queueIntegration', { type: 'dialogflow', name: 'DF', projectName: 'proj-1', language: 'es', jsonContent: sa })).json();
    expect(df).toMatchObject({ type: 'dialogflow', projectName: 'proj-1', jsonContent: '', hasJsonContent: true });
    const dfu = (await k.as(A.admin, 'PUT', `/queueIntegration/${df.id}`, { type: 'dialogflow', name: 'DF 2', projectName: 'proj-1', language: 'es', jsonContent: '' })).json();
    expect(dfu).toMatchObject({ name: 'DF 2', hasJsonContent: true, jsonContent: '' });
    expect(JSON.stringify((await k.as(A.admin, 'GET', '/queueIntegration')).json())).not.toContain('PRIVATE-KEY-TEXT');

    // Search and paging; another company sees none of it.
    const list = (await k.as(user, 'GET', '/queueIntegration?searchParam=ped')).json();
    expect(list).toMatchObject({ count: 1, hasMore: false });
    expect(list.queueIntegrations[0].id).toBe(w.id);
    expect((await k.as(B.admin, 'GET', '/queueIntegration')).json()).toEqual({ queueIntegrations: [], count: 0, hasMore: false });
    expect(err(await k.as(B.admin, 'GET', `/queueIntegration/${w.id}`))).toEqual({ status: 404, error: 'ERR_NO_INTEGRATION_FOUND' });
    expect(err(await k.as(B.admin, 'PUT', `/queueIntegration/${w.id}`, { type: 'webhook', name: 'hack', urlN8N: hook.url }))).toEqual({ status: 404, error: 'ERR_NO_INTEGRATION_FOUND' });
    expect(err(await k.as(B.admin, 'DELETE', `/queueIntegration/${w.id}`))).toEqual({ status: 404, error: 'ERR_NO_INTEGRATION_FOUND' });
    expect(err(await k.as(B.admin, 'POST', '/queueIntegration/testSession', { id: w.id }))).toEqual({ status: 404, error: 'ERR_NO_INTEGRATION_FOUND' });
    expect((await k.as(A.admin, 'DELETE', `/queueIntegration/${df.id}`)).json()).toEqual({ message: 'Integration deleted' });
    expect((await k.as(null, 'GET', '/queueIntegration')).statusCode).toBe(401);
    expect(errorCatalogue().ERR_NO_INTEGRATION_FOUND).toMatchObject({ status: 404, owner: 'integrations' });
  });

  test('webhook: a signed POST per customer message, the answer reaches the customer, handoff to the queue', async () => {
    const t = await Tenant.create(k, graph);
    const q = await t.queue({ name: 'Suporte' });
    const w = (await k.as(t.admin, 'POST', '/queueIntegration', { type: 'webhook', name: 'Loja', urlN8N: `${hook.url}/loja`, secret: 'a-very-long-secret-of-mine' })).json();
    expect(w.secret).toBeUndefined();
    await t.setConnection({ integrationId: w.id, queueIds: [q.id] });
    hook.handler = (hit) => {
      const text = hit.body?.message?.body;
      if (text === 'humano') return { body: { messages: ['Vou chamar alguém.'], handoff: { queueId: q.id }, reason: 'cliente pediu' } };
      return { body: { messages: [`Você disse: ${text}`, { text: 'Algo mais?' }] } };
    };
    const c = t.customer('Rita');
    await c.says('oi');
    expect(await c.receives(2)).toEqual(['Você disse: oi', 'Algo mais?']);
    const hit = hook.hits.find((h) => h.url === '/loja' && h.body?.message?.body === 'oi')!;
    expect(hit.headers['x-atendo-signature']).toBe(`sha256=${createHmac('sha256', 'a-very-long-secret-of-mine').update(hit.raw).digest('hex')}`);
    expect(hit.body).toMatchObject({ event: 'message', companyId: t.companyId, integration: { id: w.id, type: 'webhook' }, contact: { number: c.number, name: 'Rita' }, connection: { id: t.connectionId }, message: { body: 'oi', mediaType: 'conversation' } });
    expect(await c.ticketBecomes({ useIntegration: true, integrationId: w.id })).toMatchObject({ status: 'pending', userId: null });

    await c.says('humano');
    expect(await c.receives(1)).toEqual(['Vou chamar alguém.']);
    const ticket = await c.ticketBecomes({ useIntegration: false, status: 'pending', queueId: q.id });
    expect(ticket.integrationId).toBeNull();
    const before = hook.hits.length;
    await c.says('olá?');
    await c.receivesNothing();
    expect(hook.hits.length).toBe(before);
    const note = await waitFor(() => k.db('messages').where({ ticketId: ticket.id, isPrivate: true }).first());
    expect(note.body).toContain('cliente pediu');
  });

  test('a burst of customer messages reaches the webhook one at a time, in order', async () => {
    const t = await Tenant.create(k, graph);
    const w = (await k.as(t.admin, 'POST', '/queueIntegration', { type: 'webhook', name: 'Lento', urlN8N: `${hook.url}/slow` })).json();
    await t.setConnection({ integrationId: w.id });
    let inFlight = 0;
    let most = 0;
    hook.handler = async (hit) => {
      if (hit.url !== '/slow') return { body: {} };
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, 250));
      inFlight--;
      return { body: { messages: [`ok ${hit.body.message.body}`] } };
    };
    const c = t.customer('Nina');
    await c.says('um');
    await Promise.all([c.says('dois'), c.says('três')]);
    const got = await c.receives(3, 20_000);
    const order = hook.hits.filter((h) => h.url === '/slow').map((h) => h.body.message.body);
    expect(got).toEqual(order.map((b: string) => `ok ${b}`));
    // In the order the messages were stored (the inbound pipeline's order), never two at once.
    const ticket = await c.ticket();
    const stored = (await k.db('messages').where({ ticketId: ticket.id, fromMe: false }).orderBy('id')).map((m: { body: string }) => m.body);
    expect(order).toEqual(stored);
    expect([...order].sort()).toEqual(['dois', 'três', 'um']);
    expect(most).toBe(1);
  }, 60_000);

  test('failures: after the retries the ticket goes to its queue with a private note and is not taken again', async () => {
    const t = await Tenant.create(k, graph);
    const q = await t.queue({ name: 'Humanos' });
    const w = (await k.as(t.admin, 'POST', '/queueIntegration', { type: 'n8n', name: 'Quebrado', urlN8N: `${hook.url}/broken` })).json();
    await t.queue({ name: 'Outra' });
    // A queue's integration takes the tickets in that queue (one queue: the bot puts the ticket there).
    await k.as(t.admin, 'PUT', `/queue/${q.id}`, { name: 'Humanos', color: '#112233', integrationId: w.id });
    await t.setConnection({ queueIds: [q.id] });
    hook.handler = (hit) => (hit.url === '/broken' ? { status: 503, body: { error: 'down' } } : { body: {} });
    const c = t.customer('Zeca');
    await c.says('oi');
    // Two attempts (INTEGRATIONS_MAX_ATTEMPTS=2, the retry after e^1 s), then the hand-over.
    await waitFor(() => hook.hits.filter((h) => h.url === '/broken').length >= 2, 30_000);
    const ticket = await c.ticketBecomes({ useIntegration: false, status: 'pending', queueId: q.id }, 10_000);
    await new Promise((r) => setTimeout(r, 500));
    expect(hook.hits.filter((h) => h.url === '/broken').map((h) => [h.body.message.body, h.body.attempt])).toEqual([['oi', 1], ['oi', 2]]);
    const note = await waitFor(() => k.db('messages').where({ ticketId: ticket.id, isPrivate: true }).first());
    expect(note.body).toMatch(/Quebrado: answered 503/);
    // Handed back: the queue's integration does not take it again.
    const n = hook.hits.length;
    await c.says('ainda aqui');
    await new Promise((r) => setTimeout(r, 1500));
    expect(hook.hits.length).toBe(n);
  }, 60_000);

  test('typebot: start, continue with a numbered choice, expiry restarts, finish keyword hands over', async () => {
    const t = await Tenant.create(k, graph);
    const w = (await k.as(t.admin, 'POST', '/queueIntegration', {
      type: 'typebot', name: 'Fluxo', urlN8N: typebot.url, typebotSlug: 'meu-bot', typebotExpires: 1, typebotDelayMessage: 10, typebotKeywordFinish: 'sair', typebotKeywordRestart: 'reiniciar', typebotRestartMessage: 'Recomeçando.', typebotUnknownMessage: 'Não entendi.',
    })).json();
    await t.setConnection({ integrationId: w.id });
    let sessions = 0;
    typebot.handler = (hit) => {
      if (hit.url === '/api/v1/typebots/meu-bot/startChat') {
        return { body: { sessionId: `s${++sessions}`, messages: [{ type: 'text', content: { markdown: 'Bem-vindo!' } }, { type: 'text', content: { richText: [{ type: 'p', children: [{ text: 'Escolha ' }, { text: 'uma opção' }] }] } }], input: { type: 'choice input', items: [{ id: 'a', content: 'Vendas' }, { id: 'b', content: 'Fim' }] } } };
      }
      const m = /^\/api\/v1\/sessions\/(s\d+)\/continueChat$/.exec(hit.url);
      if (m) {
        const text = hit.body?.message?.text;
        if (text === 'Vendas') return { body: { messages: [{ type: 'text', content: { markdown: `Vendas (${m[1]})` } }, { type: 'image', content: { url: `${typebot.url}/media/catalogo.png` } }], input: { type: 'text input' } } };
        if (text === 'Fim') return { body: { messages: [{ type: 'text', content: { markdown: 'Tchau' } }] } };
        return { body: { messages: [], input: { type: 'choice input', items: [{ content: 'Vendas' }, { content: 'Fim' }] } } };
      }
      if (hit.url === '/media/catalogo.png') return { raw: PNG, type: 'image/png' };
      return { status: 404, body: {} };
    };
    const c = t.customer('Bia');
    await c.says('oi');
    expect(await c.receives(3)).toEqual(['Bem-vindo!', 'Escolha uma opção', '1 - Vendas\n2 - Fim']);
    await c.says('1');
    // The image bubble is downloaded (SSRF-checked), stored and sent as an image through the Graph API.
    expect(await c.receives(2)).toEqual(['Vendas (s1)', '']);
    expect(graph.sent.filter((s) => s.to === c.number).map((s) => s.type)).toContain('image');
    expect(typebot.hits.find((h) => h.url === '/api/v1/sessions/s1/continueChat')?.body.message).toEqual({ type: 'text', text: 'Vendas' });
    expect((await c.ticket()).useIntegration).toBe(true);
    // Expiry: the session is older than typebotExpires minutes -> a new session starts.
    const ticket = await c.ticket();
    await k.db('integrationsSessions').where({ ticketId: ticket.id }).update({ expiresAt: new Date(Date.now() - 1000) });
    await c.says('olá de novo');
    expect(await c.receives(3)).toEqual(['Bem-vindo!', 'Escolha uma opção', '1 - Vendas\n2 - Fim']);
    expect(typebot.hits.filter((h) => h.url.endsWith('/startChat')).length).toBe(2);
    await c.says('banana');
    expect(await c.receives(1)).toEqual(['Não entendi.']);
    await c.says('reiniciar');
    expect(await c.receives(1)).toEqual(['Recomeçando.']);
    await c.says('sair');
    await c.ticketBecomes({ useIntegration: false, status: 'pending' });
    await c.receivesNothing(500);
  }, 60_000);

  test('dialogflow (official client): self-signed service-account JWT, detectIntent per ticket session, fulfilment texts; testSession', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const unauthenticated = { status: 401, body: { error: { code: 401, message: 'Request had invalid authentication credentials.', status: 'UNAUTHENTICATED' } } };
    google.handler = (hit) => {
      const path = hit.url.split('?')[0];
      if (!/^\/v2\/projects\/proj-9\/agent\/sessions\/[^/]+:detectIntent$/.test(path)) return { status: 404, body: { error: { code: 404, message: 'not found', status: 'NOT_FOUND' } } };
      // The library authenticates with a JWT it signs with the service account's key (no token endpoint).
      const [h, p, sig] = String(hit.headers.authorization ?? '').replace(/^Bearer /, '').split('.');
      if (!h || !p || !sig) return unauthenticated;
      const claims = JSON.parse(Buffer.from(p, 'base64url').toString()) as { iss?: string; exp?: number };
      const signed = createVerify('RSA-SHA256').update(`${h}.${p}`).verify(publicKey, Buffer.from(sig, 'base64url'));
      if (!signed || claims.iss !== 'bot@proj-9.iam.gserviceaccount.com' || !(Number(claims.exp) * 1000 > Date.now())) return unauthenticated;
      const text = hit.body.queryInput.text.text;
      if (text === 'tchau') return { body: { queryResult: { fulfillmentText: 'Até logo!', intent: { displayName: 'bye', endInteraction: true } } } };
      return { body: { queryResult: { fulfillmentMessages: [{ text: { text: [`Eco: ${text}`] } }], intent: { displayName: 'echo' } } } };
    };
    const t = await Tenant.create(k, graph);
    const sa = JSON.stringify({ type: 'service_account', client_email: 'bot@proj-9.iam.gserviceaccount.com', private_key: pem });
    expect((await k.as(t.admin, 'POST', '/queueIntegration/testSession', { projectName: 'proj-9', jsonContent: sa, language: 'pt-BR' })).json()).toEqual({ message: 'Dialogflow session OK' });
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    // Another key for the same account: Google (the stand-in) refuses the signature.
    const bad = JSON.stringify({ client_email: 'bot@proj-9.iam.gserviceaccount.com', private_key: other });
    expect(err(await k.as(t.admin, 'POST', '/queueIntegration/testSession', { projectName: 'proj-9', jsonContent: bad, language: 'pt-BR' }))).toEqual({ status: 400, error: 'ERR_INTEGRATION_TEST_FAILED' });
    // A key that is no key at all is refused before any call.
    const calls = google.hits.length;
    const broken = JSON.stringify({ client_email: 'bot@proj-9.iam.gserviceaccount.com', private_key: 'not a key' });
    expect(err(await k.as(t.admin, 'POST', '/queueIntegration/testSession', { projectName: 'proj-9', jsonContent: broken, language: 'pt-BR' }))).toEqual({ status: 400, error: 'ERR_INTEGRATION_TEST_FAILED' });
    expect(google.hits.length).toBe(calls);
    const df = (await k.as(t.admin, 'POST', '/queueIntegration', { type: 'dialogflow', name: 'DF', projectName: 'proj-9', language: 'pt-BR', jsonContent: sa })).json();
    await t.setConnection({ integrationId: df.id });
    const c = t.customer('Duda');
    await c.says('bom dia');
    expect(await c.receives(1)).toEqual(['Eco: bom dia']);
    const hit = google.hits.find((h) => h.url.includes(':detectIntent') && h.body.queryInput.text.text === 'bom dia')!;
    expect(hit.body.queryInput.text.languageCode).toBe('pt-BR');
    expect(hit.url.split('?')[0]).toMatch(/\/sessions\/atendo-\d+-\d+:detectIntent$/);
    await c.says('tchau');
    expect(await c.receives(1)).toEqual(['Até logo!']);
    await c.ticketBecomes({ useIntegration: false, status: 'pending' });
  }, 60_000);

  test('a chatbot option of type integration hands the ticket to the webhook', async () => {
    const t = await Tenant.create(k, graph);
    const w = (await k.as(t.admin, 'POST', '/queueIntegration', { type: 'webhook', name: 'Opção', urlN8N: `${hook.url}/option` })).json();
    const q = await t.queue({ name: 'Menu', greetingMessage: 'Escolha:', chatbots: [{ name: 'Robô', queueType: 'integration', optIntegrationId: w.id, greetingMessage: 'Falando com o robô.' }, { name: 'Outro' }] });
    const q2 = await t.queue({ name: 'Outra fila' });
    await t.setConnection({ queueIds: [q.id, q2.id], greetingMessage: 'Olá!' });
    hook.handler = (hit) => (hit.url === '/option' ? { body: { messages: [`robô: ${hit.body.message.body}`] } } : { body: {} });
    const c = t.customer('Léo');
    await c.says('oi');
    await c.receives(1);
    await c.says('1');
    await c.receives(1);
    await c.says('1');
    expect(await c.receives(1)).toEqual(['Falando com o robô.']);
    await c.says('quero ajuda');
    expect(await c.receives(1)).toEqual(['robô: quero ajuda']);
  }, 60_000);

  test('i18n/errors.json translates exactly the declared codes in the four languages', () => {
    const texts = JSON.parse(readFileSync(join(__dirname, '..', 'i18n', 'errors.json'), 'utf8')) as Record<string, Record<string, string>>;
    expect(Object.keys(texts)).toEqual(['pt-BR', 'en', 'es', 'tr']);
    for (const table of Object.values(texts)) expect(Object.keys(table).sort()).toEqual(Object.keys(integrationsPlugin.errors ?? {}).sort());
  });
});
