/**
 * The files plugin: the /files routes (validation, roles, tenant isolation, events), the option uploads
 * (type and size checks, all or nothing, replaced and removed files), and the `files` service end to end:
 * a chatbot option of type `file` and a queue's `fileListId` send the list to the customer through a
 * WhatsApp Cloud connection whose Graph API is a local server.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Socket } from 'socket.io-client';
import { createTestKernel, nextEvent, waitFor, type TestKernel, type TestUser } from '@atendo/testing';
import { errorCatalogue } from '@atendo/sdk';
import queuesPlugin from '@atendo/plugin-queues';
import tagsPlugin from '@atendo/plugin-tags';
import contactsPlugin from '@atendo/plugin-contacts';
import connectionsPlugin from '@atendo/plugin-connections';
import ticketsPlugin from '@atendo/plugin-tickets';
import channelsPlugin from '@atendo/plugin-channels';
import { createAutomationPlugin } from '@atendo/plugin-automation/plugin';
import { metaSerialize, sign } from '../../../scripts/replay';
import files from '../src/index';
import { filesService, type FileList } from '../src/contract';
import { LocalGraph } from './graph';

const SECRET = randomBytes(16).toString('hex');
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const PDF = Buffer.concat([Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n'), randomBytes(64), Buffer.from('\n%%EOF\n')]);
const EXE = Buffer.concat([Buffer.from('MZ'), randomBytes(200)]);

type Part = { name: string; value: string } | { name: string; file: { name: string; type: string; data: Buffer } };

/** A multipart/form-data body of `parts`, in order. */
function multipart(parts: Part[]) {
  const boundary = `----atendo${randomBytes(8).toString('hex')}`;
  const out: Buffer[] = [];
  for (const p of parts) {
    if ('value' in p) out.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"\r\n\r\n${p.value}\r\n`));
    else out.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"; filename="${p.file.name}"\r\nContent-Type: ${p.file.type}\r\n\r\n`), p.file.data, Buffer.from('\r\n'));
  }
  out.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(out), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** The product family's upload form: fileId, typeArch, then per file: files, mediaType, name, id. */
const uploadForm = (fileListId: number, items: { id: number | string; name: string; file: { name: string; type: string; data: Buffer } }[]) =>
  multipart([
    { name: 'fileId', value: String(fileListId) },
    { name: 'typeArch', value: 'fileList' },
    ...items.flatMap((it): Part[] => [{ name: 'files', file: it.file }, { name: 'mediaType', value: it.file.type }, { name: 'name', value: it.name }, { name: 'id', value: String(it.id) }]),
  ]);

describe('files plugin', () => {
  let k: TestKernel;
  let base: string;
  const graph = new LocalGraph();
  let A: { companyId: number; admin: TestUser; user: TestUser };
  let B: { companyId: number; admin: TestUser };
  const sockets: Socket[] = [];

  beforeAll(async () => {
    await graph.start();
    k = await createTestKernel({
      plugins: [queuesPlugin, tagsPlugin, contactsPlugin, connectionsPlugin, ticketsPlugin, channelsPlugin, files, createAutomationPlugin()],
      env: { CHANNELS_META_APP_SECRET: SECRET, CHANNELS_META_VERIFY_TOKEN: 'verify-me', CHANNELS_META_GRAPH_URL: graph.url, FILES_MAX_FILE_BYTES: '4096' },
    });
    base = await k.listen();
    const a = await k.createCompany();
    A = { ...a, user: await k.createUser(a.companyId, { profile: 'user' }) };
    B = await k.createCompany();
  });
  afterAll(async () => {
    for (const s of sockets) s.close();
    await k?.close();
    await graph.stop();
  });

  const post = (who: TestUser, url: string, body: unknown) => k.as(who, 'POST', url, body);
  const upload = (who: TestUser, fileListId: number, form: ReturnType<typeof multipart>) => k.as(who, 'POST', `/files/uploadList/${fileListId}`, form.payload, form.headers);
  const err = (res: { statusCode: number; json(): { error: string } }) => ({ status: res.statusCode, error: res.json().error });
  const storedPath = (companyId: number, url: string) => join(k.config.DATA_DIR, 'uploads', `company${companyId}`, new URL(url).pathname.split(`/company${companyId}/`)[1]);

  test('create with options, read, page by name with search, the select list; PUT keeps, adds and drops options; delete', async () => {
    const socket = await k.socket(A.admin.token, base);
    sockets.push(socket);
    const created = nextEvent<{ action: string; files: FileList }>(socket, `company-${A.companyId}-file`);
    const res = await post(A.admin, '/files', { name: '  Catálogo 2026 ', message: 'Segue o catálogo', options: [{ name: 'Tabela' }, { name: 'Fotos', path: 'x', mediaType: 'image/png', file: {} }], userId: 999 });
    expect(res.statusCode).toBe(200);
    const list = res.json() as FileList;
    expect(list).toEqual({
      id: expect.any(Number), companyId: A.companyId, userId: A.admin.id, name: 'Catálogo 2026', message: 'Segue o catálogo',
      options: [
        { id: expect.any(Number), fileId: list.id, name: 'Tabela', path: null, mediaType: null, mediaName: null, createdAt: expect.any(String), updatedAt: expect.any(String) },
        { id: expect.any(Number), fileId: list.id, name: 'Fotos', path: null, mediaType: null, mediaName: null, createdAt: expect.any(String), updatedAt: expect.any(String) },
      ],
      createdAt: expect.any(String), updatedAt: expect.any(String),
    });
    expect(await created).toEqual({ action: 'create', files: list });
    expect((await k.as(A.user, 'GET', `/files/${list.id}`)).json()).toEqual(list);

    for (const name of ['Boletos', 'Acordos']) expect((await post(A.admin, '/files', { name, message: 'm' })).statusCode).toBe(200);
    const page1 = (await k.as(A.user, 'GET', '/files/')).json();
    expect(page1).toMatchObject({ count: 3, hasMore: false });
    expect(page1.files.map((f: FileList) => f.name)).toEqual(['Acordos', 'Boletos', 'Catálogo 2026']);
    expect((await k.as(A.user, 'GET', '/files?searchParam=CATÁ')).json().files.map((f: FileList) => f.name)).toEqual(['Catálogo 2026']);
    expect((await k.as(A.user, 'GET', '/files/list')).json().map((f: { name: string }) => f.name)).toEqual(['Acordos', 'Boletos', 'Catálogo 2026']);

    const [tabela, fotos] = list.options;
    const updated = nextEvent<{ action: string; files: FileList }>(socket, `company-${A.companyId}-file`);
    const put = await k.as(A.admin, 'PUT', `/files/${list.id}`, { name: 'Catálogo', message: 'Novo texto', options: [{ id: fotos.id, name: 'Fotos novas' }, { name: 'Vídeo' }] });
    expect(put.statusCode).toBe(200);
    const after = put.json() as FileList;
    expect(after.options.map((o) => [o.name, o.id === fotos.id])).toEqual([['Fotos novas', true], ['Vídeo', false]]);
    expect(after.options.some((o) => o.id === tabela.id)).toBe(false);
    expect((await updated).action).toBe('update');

    const deleted = nextEvent<{ action: string; fileId: number }>(socket, `company-${A.companyId}-file`);
    expect((await k.as(A.admin, 'DELETE', `/files/${list.id}`)).json()).toEqual({ message: 'File list deleted' });
    expect(await deleted).toEqual({ action: 'delete', fileId: list.id });
    expect(err(await k.as(A.user, 'GET', `/files/${list.id}`))).toEqual({ status: 404, error: 'ERR_NO_FILE_LIST_FOUND' });
    expect(await k.db('filesOptions').where({ fileListId: list.id })).toEqual([]);
  });

  test('validation: name at least 3, message required, option names, ids of the list only, 50 options at most', async () => {
    const bad = [
      {},
      { name: 'ab', message: 'm' },
      { name: '  a  ', message: 'm' },
      { name: 'Lista', message: '' },
      { name: 'Lista', message: '   ' },
      { name: 'Lista', message: 'm', options: [{ name: '' }] },
      { name: 'Lista', message: 'm', options: [{ name: '   ' }] },
      { name: 'Lista', message: 'm', options: [{ id: 1, name: 'x' }] },
      { name: 'Lista', message: 'm', options: Array.from({ length: 51 }, (_, i) => ({ name: `o${i}` })) },
      { name: 'x'.repeat(101), message: 'm' },
    ];
    for (const body of bad) expect([body, err(await post(A.admin, '/files', body))]).toEqual([body, { status: 400, error: 'ERR_VALIDATION' }]);
    const a = (await post(A.admin, '/files', { name: 'Lista A', message: 'm', options: [{ name: 'um' }] })).json() as FileList;
    const b = (await post(A.admin, '/files', { name: 'Lista B', message: 'm', options: [{ name: 'dois' }] })).json() as FileList;
    // An option of another list, or the same option twice, is refused and nothing changes.
    expect(err(await k.as(A.admin, 'PUT', `/files/${a.id}`, { name: 'Lista A', message: 'm', options: [{ id: b.options[0].id, name: 'roubada' }] }))).toEqual({ status: 400, error: 'ERR_VALIDATION' });
    expect(err(await k.as(A.admin, 'PUT', `/files/${a.id}`, { name: 'Lista A', message: 'm', options: [{ id: a.options[0].id, name: 'x' }, { id: String(a.options[0].id), name: 'y' }] }))).toEqual({ status: 400, error: 'ERR_VALIDATION' });
    expect((await k.as(A.admin, 'GET', `/files/${b.id}`)).json().options[0].name).toBe('dois');
    expect(err(await k.as(A.admin, 'GET', '/files/0'))).toEqual({ status: 400, error: 'ERR_VALIDATION' });
    expect(err(await k.as(A.admin, 'GET', '/files?pageNumber=0'))).toEqual({ status: 400, error: 'ERR_VALIDATION' });
  });

  test('roles: users read; only admins write', async () => {
    const list = (await post(A.admin, '/files', { name: 'Só admin', message: 'm', options: [{ name: 'um' }] })).json() as FileList;
    expect((await k.as(A.user, 'GET', '/files')).statusCode).toBe(200);
    const supervisor = await k.createUser(A.companyId, { profile: 'supervisor' });
    for (const who of [A.user, supervisor]) {
      expect(err(await post(who, '/files', { name: 'Minha', message: 'm' }))).toEqual({ status: 403, error: 'ERR_NO_PERMISSION' });
      expect(err(await k.as(who, 'PUT', `/files/${list.id}`, { name: 'Minha', message: 'm' }))).toEqual({ status: 403, error: 'ERR_NO_PERMISSION' });
      expect(err(await k.as(who, 'DELETE', `/files/${list.id}`))).toEqual({ status: 403, error: 'ERR_NO_PERMISSION' });
      expect(err(await upload(who, list.id, uploadForm(list.id, [{ id: list.options[0].id, name: 'um', file: { name: 'a.png', type: 'image/png', data: PNG } }])))).toEqual({ status: 403, error: 'ERR_NO_PERMISSION' });
    }
    expect((await k.as(null, 'GET', '/files')).statusCode).toBe(401);
  });

  test('tenant isolation: another company reads, changes, uploads to and sends nothing of ours', async () => {
    const list = (await post(A.admin, '/files', { name: 'Privada', message: 'm', options: [{ name: 'um' }] })).json() as FileList;
    expect((await k.as(B.admin, 'GET', '/files')).json()).toEqual({ files: [], count: 0, hasMore: false });
    expect((await k.as(B.admin, 'GET', '/files/list')).json()).toEqual([]);
    for (const [method, url, body] of [['GET', `/files/${list.id}`], ['PUT', `/files/${list.id}`, { name: 'Tomada', message: 'm' }], ['DELETE', `/files/${list.id}`]] as const) {
      expect(err(await k.as(B.admin, method, url, body))).toEqual({ status: 404, error: 'ERR_NO_FILE_LIST_FOUND' });
    }
    expect(err(await upload(B.admin, list.id, uploadForm(list.id, [{ id: list.options[0].id, name: 'um', file: { name: 'a.png', type: 'image/png', data: PNG } }])))).toEqual({ status: 404, error: 'ERR_NO_FILE_LIST_FOUND' });
    // B's own list cannot take A's option ids.
    const mine = (await post(B.admin, '/files', { name: 'De B', message: 'm' })).json() as FileList;
    expect(err(await k.as(B.admin, 'PUT', `/files/${mine.id}`, { name: 'De B', message: 'm', options: [{ id: list.options[0].id, name: 'x' }] }))).toEqual({ status: 400, error: 'ERR_VALIDATION' });
    expect(await k.services.get(filesService).get(B.companyId, list.id)).toBeUndefined();
    await expect(k.services.get(filesService).sendList(B.companyId, list.id, 1)).rejects.toMatchObject({ code: 'ERR_NO_FILE_LIST_FOUND' });
    expect((await k.as(A.admin, 'GET', `/files/${list.id}`)).json().name).toBe('Privada');
  });

  test('uploads: checked by content and size, all or nothing, a replaced or dropped option loses its file, signed URLs serve them', async () => {
    const list = (await post(A.admin, '/files', { name: 'Anexos', message: 'Veja', options: [{ name: 'Logo' }, { name: 'Contrato' }, { name: 'Extra' }] })).json() as FileList;
    const [logo, contrato, extra] = list.options;
    const res = await upload(A.admin, list.id, uploadForm(list.id, [
      { id: logo.id, name: 'Logo', file: { name: 'logo.png', type: 'image/png', data: PNG } },
      { id: contrato.id, name: 'Contrato', file: { name: 'contrato.pdf', type: 'application/pdf', data: PDF } },
    ]));
    expect(res.statusCode).toBe(200);
    const withFiles = res.json() as FileList;
    expect(withFiles.options.map((o) => [o.name, o.mediaType, o.mediaName])).toEqual([['Logo', 'image/png', 'logo.png'], ['Contrato', 'application/pdf', 'contrato.pdf'], ['Extra', null, null]]);
    const logoUrl = withFiles.options[0].path!;
    expect(logoUrl).toMatch(new RegExp(`/public/company${A.companyId}/fileList/[^?]+\\.png\\?e=\\d+&t=`));
    const served = await k.app.inject({ method: 'GET', url: new URL(logoUrl).pathname + new URL(logoUrl).search });
    expect(served.statusCode).toBe(200);
    expect(served.rawPayload.equals(PNG)).toBe(true);
    const logoFile = storedPath(A.companyId, logoUrl);
    expect(existsSync(logoFile)).toBe(true);

    const before = (await k.as(A.admin, 'GET', `/files/${list.id}`)).json();
    const refused: [string, ReturnType<typeof multipart>, { status: number; error: string }][] = [
      ['an executable renamed .png', uploadForm(list.id, [{ id: extra.id, name: 'Extra', file: { name: 'x.png', type: 'image/png', data: EXE } }]), { status: 415, error: 'ERR_UPLOAD_TYPE' }],
      ['over FILES_MAX_FILE_BYTES', uploadForm(list.id, [{ id: extra.id, name: 'Extra', file: { name: 'big.pdf', type: 'application/pdf', data: Buffer.concat([PDF, randomBytes(5000)]) } }]), { status: 413, error: 'ERR_PAYLOAD_TOO_LARGE' }],
      ['a good file then a bad one', uploadForm(list.id, [{ id: extra.id, name: 'Extra', file: { name: 'ok.png', type: 'image/png', data: PNG } }, { id: logo.id, name: 'Logo', file: { name: 'x.png', type: 'image/png', data: EXE } }]), { status: 415, error: 'ERR_UPLOAD_TYPE' }],
      ['an option of no list', uploadForm(list.id, [{ id: 999999, name: 'x', file: { name: 'ok.png', type: 'image/png', data: PNG } }]), { status: 400, error: 'ERR_VALIDATION' }],
      ['a file without its id', multipart([{ name: 'files', file: { name: 'ok.png', type: 'image/png', data: PNG } }]), { status: 400, error: 'ERR_VALIDATION' }],
      ['one id twice', uploadForm(list.id, [{ id: extra.id, name: 'a', file: { name: 'a.png', type: 'image/png', data: PNG } }, { id: extra.id, name: 'b', file: { name: 'b.png', type: 'image/png', data: PNG } }]), { status: 400, error: 'ERR_VALIDATION' }],
      ['no file at all', multipart([{ name: 'fileId', value: String(list.id) }]), { status: 400, error: 'ERR_VALIDATION' }],
      ['fileId of another list', multipart([{ name: 'fileId', value: '424242' }, { name: 'files', file: { name: 'ok.png', type: 'image/png', data: PNG } }, { name: 'id', value: String(extra.id) }]), { status: 400, error: 'ERR_VALIDATION' }],
    ];
    const stored = () => k.db.raw(`SELECT count(*)::int AS n FROM files_options WHERE path IS NOT NULL`).then((r) => r.rows[0].n as number);
    const n0 = await stored();
    for (const [what, form, expected] of refused) expect([what, err(await upload(A.admin, list.id, form))]).toEqual([what, expected]);
    expect(err(await k.as(A.admin, 'POST', `/files/uploadList/${list.id}`, { files: [] }))).toEqual({ status: 415, error: 'ERR_UNSUPPORTED_MEDIA_TYPE' });
    expect(await stored()).toBe(n0);
    expect((await k.as(A.admin, 'GET', `/files/${list.id}`)).json().options.map((o: { mediaName: string | null }) => o.mediaName)).toEqual(before.options.map((o: { mediaName: string | null }) => o.mediaName));
    // Nothing of the refused uploads stayed on disk: the folder holds the two accepted files only.
    expect(readdirSync(join(k.config.DATA_DIR, 'uploads', `company${A.companyId}`, 'fileList'))).toHaveLength(2);

    // Replacing the logo deletes the old file; dropping the contract option deletes its file.
    const replaced = (await upload(A.admin, list.id, uploadForm(list.id, [{ id: logo.id, name: 'Logo', file: { name: 'logo2.png', type: 'image/png', data: PNG } }]))).json() as FileList;
    expect(replaced.options[0].mediaName).toBe('logo2.png');
    expect(existsSync(logoFile)).toBe(false);
    const contractFile = storedPath(A.companyId, withFiles.options[1].path!);
    expect(existsSync(contractFile)).toBe(true);
    await k.as(A.admin, 'PUT', `/files/${list.id}`, { name: 'Anexos', message: 'Veja', options: [{ id: logo.id, name: 'Logo' }, { id: extra.id, name: 'Extra' }] });
    expect(existsSync(contractFile)).toBe(false);
    const newLogo = storedPath(A.companyId, replaced.options[0].path!);
    await k.as(A.admin, 'DELETE', `/files/${list.id}`);
    expect(existsSync(newLogo)).toBe(false);
  });

  describe('sending a list to a customer (the files service, used by the bot)', () => {
    const phoneId = '245000000000001';
    let connectionId: number;

    /** A signed inbound text webhook from `number`. */
    async function says(number: string, text: string, name = 'Cliente') {
      const body = {
        object: 'whatsapp_business_account',
        entry: [{ id: 'waba-1', changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', metadata: { display_phone_number: '15550001234', phone_number_id: phoneId }, contacts: [{ profile: { name }, wa_id: number }], messages: [{ from: number, id: `wamid.IN${randomBytes(8).toString('hex')}`, timestamp: String(Math.floor(Date.now() / 1000)), type: 'text', text: { body: text } }] } }] }],
      };
      const bytes = metaSerialize(body);
      const res = await k.app.inject({ method: 'POST', url: '/webhook', payload: bytes, headers: { 'content-type': 'application/json', 'x-hub-signature-256': sign(bytes, SECRET) } });
      expect(res.statusCode).toBe(200);
    }
    const received = async (number: string, n: number) => (await waitFor(() => (graph.to(number).length >= n ? graph.to(number) : undefined), 15_000))!;

    let catalog: FileList;
    beforeAll(async () => {
      const conn = await post(A.admin, '/whatsapp', { name: 'Cloud', channel: 'whatsappapi', facebookPageUserId: phoneId, facebookUserToken: 'token-x', greetingMessage: 'Escolha:' });
      expect(conn.statusCode).toBe(200);
      connectionId = conn.json().id;
      catalog = (await post(A.admin, '/files', { name: 'Catálogo', message: 'Nosso catálogo:', options: [{ name: 'Tabela de preços' }, { name: 'Sem arquivo' }, { name: 'Logo' }] })).json();
      const up = await upload(A.admin, catalog.id, uploadForm(catalog.id, [
        { id: catalog.options[0].id, name: 'Tabela de preços', file: { name: 'precos.pdf', type: 'application/pdf', data: PDF } },
        { id: catalog.options[2].id, name: 'Logo', file: { name: 'logo.png', type: 'image/png', data: PNG } },
      ]));
      expect(up.statusCode).toBe(200);
    });

    test("a chatbot option of type file sends the list's message and files, then the ticket is closed", async () => {
      const vendas = (await post(A.admin, '/queue', { name: 'Vendas', color: '#123456', greetingMessage: 'Vendas:', chatbots: [{ name: 'Catálogo', queueType: 'file', optFileId: catalog.id, greetingMessage: 'Enviando o catálogo', closeTicket: true }] })).json();
      const outro = (await post(A.admin, '/queue', { name: 'Outro', color: '#654321' })).json();
      await k.as(A.admin, 'PUT', `/whatsapp/${connectionId}`, { queueIds: [vendas.id, outro.id] });
      const number = '5511987650001';
      await says(number, 'oi');
      await received(number, 1);
      await says(number, '1');
      await received(number, 2);
      await says(number, '1');
      const got = await received(number, 5);
      expect(got.slice(2, 5).map((s) => [s.type, s.text ?? s.caption, s.filename])).toEqual([
        ['text', 'Enviando o catálogo', undefined],
        ['text', 'Nosso catálogo:', undefined],
        ['document', 'Tabela de preços', 'precos.pdf'],
      ]);
      const all = await received(number, 6);
      expect(all[5]).toMatchObject({ type: 'image', caption: 'Logo' });
      expect(graph.uploads.length).toBeGreaterThanOrEqual(2);
      const contact = await k.db('contacts').where({ companyId: A.companyId, number }).first();
      const ticket = await waitFor(async () => {
        const t = await k.db('tickets').where({ contactId: contact.id }).orderBy('id', 'desc').first();
        return t?.status === 'closed' ? t : undefined;
      }, 10_000);
      const stored = await k.db('messages').where({ ticketId: ticket.id, fromMe: true }).orderBy('id');
      expect(stored.map((m) => [m.body, m.mediaName])).toEqual(expect.arrayContaining([['Nosso catálogo:', null], ['Tabela de preços', 'precos.pdf'], ['Logo', 'logo.png']]));
    });

    test("a queue's fileListId: the list follows the queue's greeting when the bot brings the ticket in", async () => {
      const suporte = (await post(A.admin, '/queue', { name: 'Suporte', color: '#abcdef', greetingMessage: 'Suporte aqui', fileListId: catalog.id })).json();
      await k.as(A.admin, 'PUT', `/whatsapp/${connectionId}`, { queueIds: [suporte.id], greetingMessage: '' });
      const number = '5511987650002';
      await says(number, 'bom dia');
      const got = await received(number, 4);
      expect(got.map((s) => [s.type, s.text ?? s.caption])).toEqual([['text', 'Suporte aqui'], ['text', 'Nosso catálogo:'], ['document', 'Tabela de preços'], ['image', 'Logo']]);
    });
  });

  test('i18n/errors.json translates exactly the declared codes in the four languages', () => {
    const texts = JSON.parse(readFileSync(join(__dirname, '..', 'i18n', 'errors.json'), 'utf8')) as Record<string, Record<string, string>>;
    expect(Object.keys(texts)).toEqual(['pt-BR', 'en', 'es', 'tr']);
    for (const table of Object.values(texts)) expect(Object.keys(table).sort()).toEqual(Object.keys(files.errors ?? {}).sort());
    expect(errorCatalogue().ERR_NO_FILE_LIST_FOUND).toMatchObject({ status: 404, owner: 'files' });
  });
});
