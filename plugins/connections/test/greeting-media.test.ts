import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createTestKernel, waitFor, type TestKernel, type TestUser } from '@atendo/testing';
import connectionsPlugin from '../src/index';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const PDF = Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n');

/** A multipart body with one file part `file`. */
function multipart(name: string, type: string, data: Buffer) {
  const boundary = `----atendo${randomBytes(8).toString('hex')}`;
  const payload = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: ${type}\r\n\r\n`),
    data,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

describe('greeting media: POST/DELETE /whatsapp/:id/media-upload', () => {
  let k: TestKernel;
  let A: { companyId: number; admin: TestUser };
  let B: { companyId: number; admin: TestUser };
  let user: TestUser;
  let id: number;

  beforeAll(async () => {
    k = await createTestKernel({ plugins: [connectionsPlugin], env: { UPLOAD_LIMIT: String(32 * 1024 * 1024) } });
    A = await k.createCompany();
    B = await k.createCompany();
    user = await k.createUser(A.companyId, { profile: 'user' });
    const res = await k.as(A.admin, 'POST', '/whatsapp', { name: 'Com mídia' });
    expect(res.statusCode).toBe(200);
    id = res.json().id;
  });
  afterAll(() => k.close());

  const upload = (who: { token: string }, target: number, file: ReturnType<typeof multipart>) =>
    k.app.inject({ method: 'POST', url: `/whatsapp/${target}/media-upload`, payload: file.payload, headers: { ...file.headers, authorization: `Bearer ${who.token}` } });
  const fileOf = (companyId: number, path: string) => join(String(k.config.DATA_DIR), 'uploads', `company${companyId}`, path);

  test('an admin attaches an image, then replaces it with a PDF (the old file deleted); the update is pushed', async () => {
    const base = await k.listen();
    const socket = await k.socket(A.admin.token, base);
    const events: unknown[] = [];
    socket.on(`company-${A.companyId}-whatsapp`, (e: unknown) => events.push(e));
    const first = await upload(A.admin, id, multipart('saudacao.png', 'image/png', PNG));
    expect(first.statusCode).toBe(200);
    const path1 = first.json().greetingMediaAttachment as string;
    expect(path1).toMatch(/^greeting\/.+\.png$/);
    expect((await k.db('whatsapps').where({ id }).first()).greetingMediaAttachment).toBe(path1);
    const second = await upload(A.admin, id, multipart('catalogo.pdf', 'application/pdf', PDF));
    expect(second.statusCode).toBe(200);
    const path2 = second.json().greetingMediaAttachment as string;
    expect(path2).toMatch(/^greeting\/.+\.pdf$/);
    expect(existsSync(fileOf(A.companyId, path1))).toBe(false);
    expect(existsSync(fileOf(A.companyId, path2))).toBe(true);
    await waitFor(() => (events.some((e) => (e as { whatsapp?: { greetingMediaAttachment?: string } }).whatsapp?.greetingMediaAttachment === path2) ? true : undefined), 5000);
    socket.close();

    const cleared = await k.as(A.admin, 'DELETE', `/whatsapp/${id}/media-upload`);
    expect(cleared.statusCode).toBe(200);
    expect(cleared.json().greetingMediaAttachment).toBeNull();
    expect(existsSync(fileOf(A.companyId, path2))).toBe(false);
  });

  test('type checked by content, size limited, admins of the company only', async () => {
    const fake = await upload(A.admin, id, multipart('virus.png', 'image/png', Buffer.from('MZ\x90\x00 not an image at all')));
    expect({ status: fake.statusCode, error: fake.json().error }).toEqual({ status: 415, error: 'ERR_UPLOAD_TYPE' });
    const big = await upload(A.admin, id, multipart('big.pdf', 'application/pdf', Buffer.concat([PDF, Buffer.alloc(16 * 1024 * 1024 + 10, 32)])));
    expect({ status: big.statusCode, error: big.json().error }).toEqual({ status: 413, error: 'ERR_PAYLOAD_TOO_LARGE' });
    const notMine = await upload(B.admin, id, multipart('x.png', 'image/png', PNG));
    expect({ status: notMine.statusCode, error: notMine.json().error }).toEqual({ status: 404, error: 'ERR_NO_WAPP_FOUND' });
    const notAdmin = await upload(user, id, multipart('x.png', 'image/png', PNG));
    expect({ status: notAdmin.statusCode, error: notAdmin.json().error }).toEqual({ status: 403, error: 'ERR_NO_PERMISSION' });
    const noFile = await k.as(A.admin, 'POST', `/whatsapp/${id}/media-upload`, { a: 1 });
    expect(noFile.statusCode).toBeGreaterThanOrEqual(400);
    expect(noFile.statusCode).toBeLessThan(500);
    expect((await k.db('whatsapps').where({ id }).first()).greetingMediaAttachment).toBeNull();
    expect((await k.as(B.admin, 'DELETE', `/whatsapp/${id}/media-upload`)).json().error).toBe('ERR_NO_WAPP_FOUND');
  });
});
