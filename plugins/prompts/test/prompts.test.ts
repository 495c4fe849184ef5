import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestKernel, nextEvent, waitFor, type TestKernel } from '@atendo/testing';
import promptsPlugin from '../src/index';
import { SpeechStandIn } from './speech-stand-in';
import { Fake, Graph, PLUGINS, sharedEnv, Tenant } from './harness';

const SYSTEM = 'Você é a assistente da Loja Exemplo. Responda em português, com frases curtas e educadas.';

/**
 * AI prompts end to end: the CRUD (validation, the key encrypted at rest and masked, tenant isolation) and
 * customers answered through a local OpenAI-compatible server at OPENAI_BASE_URL and a local Graph server:
 * the history window, the handover phrase, failures handed to humans.
 */
describe('prompts plugin', () => {
  let k: TestKernel;
  const graph = new Graph();
  const llm = new Fake();
  const tts = new SpeechStandIn();
  const saved = process.env.OPENAI_BASE_URL;
  beforeAll(async () => {
    await Promise.all([graph.start(), llm.start(), tts.start()]);
    // The official client's own variable: a self-hosted compatible server.
    process.env.OPENAI_BASE_URL = `${llm.url}/v1`;
    k = await createTestKernel({ plugins: [...PLUGINS(), promptsPlugin], env: { ...sharedEnv(graph.url), PROMPTS_MAX_ATTEMPTS: '2', PROMPTS_MODEL: 'local-model', PROMPTS_ENCRYPTION_KEY: 'k'.repeat(40), PROMPTS_TTS_URL: `${tts.url}/{region}/tts`, PROMPTS_TIMEOUT_MS: '5000' } });
  });
  afterAll(async () => {
    await k?.close();
    await Promise.all([graph.stop(), llm.stop(), tts.stop()]);
    if (saved === undefined) delete process.env.OPENAI_BASE_URL;
    else process.env.OPENAI_BASE_URL = saved;
  });

  const err = (res: { statusCode: number; json(): { error?: string } }) => ({ status: res.statusCode, error: res.json().error });
  const completion = (content: string) => ({ body: { id: 'c1', object: 'chat.completion', created: 1, model: 'local-model', choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }] } });

  test("live events: `company-{id}-prompt` and the family's global name `prompt`, each to the company's sockets only", async () => {
    const A = await Tenant.create(k, graph);
    const B = await Tenant.create(k, graph);
    const q = await A.queue({ name: 'Suporte' });
    const base = await k.listen();
    const sa = await k.socket(A.admin.token, base);
    const sb = await k.socket(B.admin.token, base);
    try {
      const leaked: string[] = [];
      sb.onAny((name: string) => leaked.push(name));
      const family = nextEvent<Record<string, any>>(sa, 'prompt', 5000);
      const ours = nextEvent<Record<string, any>>(sa, `company-${A.companyId}-prompt`, 5000);
      const res = await k.as(A.admin, 'POST', '/prompt', { name: 'Ao vivo', prompt: SYSTEM, apiKey: 'sk-live-key-0001', queueId: q.id });
      expect(res.statusCode).toBe(200);
      expect(await family).toMatchObject({ action: 'create', prompt: { id: res.json().id, name: 'Ao vivo' } });
      expect(await ours).toMatchObject({ action: 'create', prompt: { id: res.json().id } });
      const removed = nextEvent<Record<string, any>>(sa, 'prompt', 5000);
      await k.as(A.admin, 'DELETE', `/prompt/${res.json().id}`);
      expect(await removed).toEqual({ action: 'delete', promptId: res.json().id });
      await new Promise((r) => setTimeout(r, 300));
      expect(leaked.filter((n) => n.includes('prompt'))).toEqual([]);
    } finally {
      sa.close();
      sb.close();
    }
  });

  test('CRUD: validation, the API key encrypted at rest and never answered in full, tenant isolation', async () => {
    const A = await Tenant.create(k, graph);
    const B = await Tenant.create(k, graph);
    const q = await A.queue({ name: 'Vendas' });
    const qB = await B.queue({ name: 'Outra' });
    const user = await k.createUser(A.companyId, { profile: 'user' });
    const body = { name: 'Assistente', prompt: SYSTEM, apiKey: 'sk-secret-key-of-company-a-1234', queueId: q.id, maxTokens: 150, temperature: 0.5, maxMessages: 4, voice: 'texto' };
    const res = await k.as(A.admin, 'POST', '/prompt', body);
    expect(res.statusCode).toBe(200);
    const p = res.json();
    expect(p).toMatchObject({ name: 'Assistente', apiKey: 'sk-…1234', queueId: q.id, queue: { id: q.id, name: 'Vendas' }, maxTokens: 150, temperature: 0.5, maxMessages: 4, voice: 'texto' });
    const row = await k.db('promptsPrompts').where({ id: p.id }).first();
    expect(row.apiKey).toMatch(/^v1:/);
    expect(row.apiKey).not.toContain('secret-key');
    expect((await k.as(user, 'GET', '/prompt')).json()).toMatchObject({ count: 1, prompts: [{ id: p.id, apiKey: 'sk-…1234', queue: { name: 'Vendas' } }] });
    // Defaults.
    const d = (await k.as(A.admin, 'POST', '/prompt', { name: 'Padrões', prompt: SYSTEM, apiKey: 'sk-another-key-5678', queueId: q.id })).json();
    expect(d).toMatchObject({ maxTokens: 100, temperature: 1, maxMessages: 10, voice: 'texto' });
    // The masked key sent back keeps the stored one.
    const u = (await k.as(A.admin, 'PUT', `/prompt/${p.id}`, { ...body, name: 'Assistente 2', apiKey: 'sk-…1234' })).json();
    expect(u).toMatchObject({ name: 'Assistente 2', apiKey: 'sk-…1234' });
    expect((await k.db('promptsPrompts').where({ id: p.id }).first()).apiKey).not.toBe('sk-…1234');

    for (const [b, code] of [
      [{ ...body, name: 'abc' }, 'ERR_VALIDATION'],
      [{ ...body, prompt: 'curto demais' }, 'ERR_VALIDATION'],
      [{ ...body, queueId: null }, 'ERR_PROMPT_QUEUE_REQUIRED'],
      [{ ...body, queueId: undefined }, 'ERR_PROMPT_QUEUE_REQUIRED'],
      [{ ...body, apiKey: '' }, 'ERR_VALIDATION'],
      [{ ...body, temperature: 3 }, 'ERR_VALIDATION'],
      [{ ...body, maxMessages: 0 }, 'ERR_VALIDATION'],
      [{ ...body, voice: 'robô' }, 'ERR_VALIDATION'],
    ] as const) {
      expect({ b, ...err(await k.as(A.admin, 'POST', '/prompt', b)) }).toEqual({ b, status: 400, error: code });
    }
    expect(err(await k.as(A.admin, 'POST', '/prompt', { ...body, queueId: qB.id }))).toEqual({ status: 404, error: 'ERR_NO_QUEUE_FOUND' });
    expect((await k.as(user, 'POST', '/prompt', body)).statusCode).toBe(403);

    expect((await k.as(B.admin, 'GET', '/prompt')).json()).toEqual({ prompts: [], count: 0, hasMore: false });
    for (const [m, url, b] of [['GET', `/prompt/${p.id}`], ['PUT', `/prompt/${p.id}`, { ...body, queueId: qB.id }], ['DELETE', `/prompt/${p.id}`]] as const) {
      expect(err(await k.as(B.admin, m, url, b))).toEqual({ status: 404, error: 'ERR_NO_PROMPT_FOUND' });
    }
    expect(JSON.stringify((await k.as(A.admin, 'GET', `/prompt/${p.id}`)).json())).not.toContain('secret-key');
    expect((await k.as(A.admin, 'DELETE', `/prompt/${d.id}`)).json()).toEqual({ message: 'Prompt deleted' });
    expect(err(await k.as(A.admin, 'GET', `/prompt/${d.id}`))).toEqual({ status: 404, error: 'ERR_NO_PROMPT_FOUND' });
  });

  test('answers through OPENAI_BASE_URL with the prompt, the history window, max tokens and temperature; the handover phrase', async () => {
    const t = await Tenant.create(k, graph);
    const q = await t.queue({ name: 'Atendimento' });
    const p = (await k.as(t.admin, 'POST', '/prompt', { name: 'Assistente', prompt: SYSTEM, apiKey: 'sk-live-key-abcdef-9999', queueId: q.id, maxTokens: 77, temperature: 0.3, maxMessages: 3 })).json();
    await t.setConnection({ promptId: p.id });
    let n = 0;
    llm.handler = (hit) => {
      if (hit.url !== '/v1/chat/completions') return { status: 404, body: {} };
      const last = hit.body.messages[hit.body.messages.length - 1].content;
      if (last === 'quero um humano') return completion('Claro, vou transferir. Ação: Transferir para o setor de atendimento');
      return completion(`Resposta ${++n}`);
    };
    const c = t.customer('Ana');
    await c.says('oi');
    expect(await c.receives(1)).toEqual(['Resposta 1']);
    const first = llm.hits.find((h) => h.body?.messages?.at(-1)?.content === 'oi')!;
    expect(first.headers.authorization).toBe('Bearer sk-live-key-abcdef-9999');
    expect(first.body).toMatchObject({ model: 'local-model', max_tokens: 77, temperature: 0.3, messages: [{ role: 'system', content: SYSTEM }, { role: 'user', content: 'oi' }] });
    expect(await c.ticketBecomes({ promptId: p.id })).toMatchObject({ status: 'pending', userId: null });
    await c.says('tem camisa azul?');
    expect(await c.receives(1)).toEqual(['Resposta 2']);
    await c.says('e verde?');
    expect(await c.receives(1)).toEqual(['Resposta 3']);
    const third = llm.hits.find((h) => h.body?.messages?.at(-1)?.content === 'e verde?')!;
    // The last maxMessages (3) messages of the ticket, oldest first, ours as assistant.
    expect(third.body.messages).toEqual([
      { role: 'system', content: SYSTEM },
      { role: 'user', content: 'tem camisa azul?' },
      { role: 'assistant', content: 'Resposta 2' },
      { role: 'user', content: 'e verde?' },
    ]);
    await c.says('quero um humano');
    expect(await c.receives(1)).toEqual(['Claro, vou transferir.']);
    const ticket = await c.ticketBecomes({ promptId: null, status: 'pending', queueId: q.id });
    expect(ticket.userId).toBeNull();
    const calls = llm.hits.length;
    await c.says('alô?');
    await c.receivesNothing();
    expect(llm.hits.length).toBe(calls);
  }, 60_000);

  test('a burst of messages: one answer at a time, the last one answering the whole burst', async () => {
    const t = await Tenant.create(k, graph);
    const q = await t.queue({ name: 'Rajada' });
    const p = (await k.as(t.admin, 'POST', '/prompt', { name: 'Rajada IA', prompt: SYSTEM, apiKey: 'sk-burst-key-4242', queueId: q.id })).json();
    await t.setConnection({ promptId: p.id });
    let inFlight = 0;
    let most = 0;
    const before = llm.hits.length;
    llm.handler = async (hit) => {
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, 400));
      inFlight--;
      return completion(`sobre: ${hit.body.messages.at(-1).content}`);
    };
    const c = t.customer('Rui');
    await c.says('um');
    await Promise.all([c.says('dois'), c.says('três')]);
    const ticket = await c.ticket();
    const lastStored = async () => (await k.db('messages').where({ ticketId: ticket.id, fromMe: false }).orderBy('id', 'desc').first())?.body;
    // Answers stop once the last message of the ticket is ours.
    await waitFor(async () => (await k.db('messages').where({ ticketId: ticket.id, isPrivate: false }).orderBy('id', 'desc').first())?.fromMe === true && inFlight === 0, 20_000);
    await new Promise((r) => setTimeout(r, 800));
    const calls = llm.hits.slice(before);
    expect(most).toBe(1);
    expect(calls.length).toBeLessThanOrEqual(3);
    expect(calls.at(-1)!.body.messages.at(-1).content).toBe(await lastStored());
    const answers = graph.to(c.number);
    expect(answers.length).toBe(calls.length);
  }, 60_000);

  test('a voice other than "texto": the answer is spoken (text-to-speech) and sent as audio; a failing provider falls back to text', async () => {
    const t = await Tenant.create(k, graph);
    const q = await t.queue({ name: 'Voz' });
    const p = (await k.as(t.admin, 'POST', '/prompt', { name: 'Voz IA', prompt: SYSTEM, apiKey: 'sk-voice-key-7777', queueId: q.id, voice: 'pt-BR-FranciscaNeural', voiceKey: 'voice-secret-key-123456', voiceRegion: 'brazilsouth' })).json();
    expect(p).toMatchObject({ voice: 'pt-BR-FranciscaNeural', voiceKey: 'voi…3456', voiceRegion: 'brazilsouth' });
    expect(err(await k.as(t.admin, 'PUT', `/prompt/${p.id}`, { name: 'Voz IA', prompt: SYSTEM, queueId: q.id, voiceRegion: 'evil.example.com/x' }))).toEqual({ status: 400, error: 'ERR_VALIDATION' });
    await t.setConnection({ promptId: p.id });
    llm.handler = () => completion('Olá, em que posso ajudar?');
    // An MP3 (ID3 header and an MPEG frame header), as the provider answers.
    const mp3 = Buffer.concat([Buffer.from('ID3\x03\x00\x00\x00\x00\x00\x00', 'binary'), Buffer.from([0xff, 0xfb, 0x90, 0x64]), Buffer.alloc(400)]);
    tts.audio = mp3;
    const c = t.customer('Vera');
    await c.says('oi');
    await waitFor(() => graph.sent.some((s) => s.to === c.number), 15_000);
    const said = tts.syntheses.at(-1)!;
    expect(said.path).toBe('/brazilsouth/tts');
    expect(said.key).toBe('voice-secret-key-123456');
    expect(said.ssml).toContain('<voice name="pt-BR-FranciscaNeural">Olá, em que posso ajudar?</voice>');
    expect(graph.sent.filter((s) => s.to === c.number).map((s) => s.type)).toEqual(['audio']);
    // The audio sent is the provider's MP3, stored as an upload of the company.
    const audio = await waitFor(() => k.db('messages').where({ companyId: t.companyId, mediaType: 'audio' }).orderBy('id', 'desc').first());
    expect(audio.mediaName).toMatch(/\.mp3$/);
    expect(audio.mediaPath).toBeTruthy();
    tts.audio = null;
    await c.says('e agora?');
    await waitFor(() => graph.sent.filter((s) => s.to === c.number).length === 2, 15_000);
    expect(tts.syntheses.length).toBe(2);
    expect(graph.sent.filter((s) => s.to === c.number).map((s) => [s.type, s.text])).toEqual([['audio', ''], ['text', 'Olá, em que posso ajudar?']]);
  }, 60_000);

  test('a failing model API: after the retries the ticket goes to the queue with a private note', async () => {
    const t = await Tenant.create(k, graph);
    const q = await t.queue({ name: 'Suporte' });
    const q2 = await t.queue({ name: 'Outro' });
    const p = (await k.as(t.admin, 'POST', '/prompt', { name: 'Quebrado', prompt: SYSTEM, apiKey: 'sk-broken-key-0000', queueId: q2.id })).json();
    await k.as(t.admin, 'PUT', `/queue/${q.id}`, { name: 'Suporte', color: '#123456', promptId: p.id });
    await t.setConnection({ queueIds: [q.id] });
    llm.handler = () => ({ status: 503, body: { error: { message: 'overloaded' } } });
    const before = llm.hits.length;
    const c = t.customer('Caio');
    await c.says('oi');
    await waitFor(() => llm.hits.length - before >= 2, 30_000);
    const ticket = await c.ticketBecomes({ promptId: null, status: 'pending', queueId: q2.id }, 10_000);
    const note = await waitFor(() => k.db('messages').where({ ticketId: ticket.id, isPrivate: true }).first());
    expect(note.body).toMatch(/Quebrado: the model API answered 503/);
    await new Promise((r) => setTimeout(r, 500));
    expect(llm.hits.length - before).toBe(2);
  }, 60_000);

  test('i18n/errors.json translates exactly the declared codes in the four languages', () => {
    const texts = JSON.parse(readFileSync(join(__dirname, '..', 'i18n', 'errors.json'), 'utf8')) as Record<string, Record<string, string>>;
    expect(Object.keys(texts)).toEqual(['pt-BR', 'en', 'es', 'tr']);
    for (const table of Object.values(texts)) expect(Object.keys(table).sort()).toEqual(Object.keys(promptsPlugin.errors ?? {}).sort());
  });
});
