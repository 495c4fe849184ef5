/**
 * The plugin against a running kernel with it installed (the remote kit of `@atendo/testing`): run with
 * `ATENDO_URL=http://127.0.0.1:8080 ATENDO_ADMIN_EMAIL=… ATENDO_ADMIN_PASSWORD=… npm run test:remote`
 * (node's test runner, TypeScript through tsx). Each run creates two companies of its own, so it can run
 * against a shared kernel.
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { connectKernel, type RemoteKernel, type RemoteUser } from '@atendo/testing/remote';

let k: RemoteKernel;
let a: { companyId: number; admin: RemoteUser };
let b: { companyId: number; admin: RemoteUser };

before(async () => {
  const url = process.env.ATENDO_URL ?? 'http://127.0.0.1:8080';
  k = await connectKernel(url, { email: process.env.ATENDO_ADMIN_EMAIL ?? '', password: process.env.ATENDO_ADMIN_PASSWORD ?? '' });
  a = await k.createCompany();
  b = await k.createCompany();
});

test('the routes refuse a caller without a token', async () => {
  assert.equal((await k.as(null, 'GET', '/echo-integration/replies')).statusCode, 401);
  assert.equal((await k.as(null, 'POST', '/echo-integration/replies', { keyword: 'oi', reply: 'olá' })).statusCode, 401);
});

test("a company's replies: created by its admin, invisible to another company", async () => {
  const created = await k.as(a.admin, 'POST', '/echo-integration/replies', { keyword: '  Horário ', reply: 'Das 8h às 18h.' });
  assert.equal(created.statusCode, 200);
  const reply = created.json<{ id: number; keyword: string; companyId: number }>();
  assert.equal(reply.keyword, 'horário');
  assert.equal(reply.companyId, a.companyId);
  assert.equal((await k.as(a.admin, 'POST', '/echo-integration/replies', { keyword: 'HORÁRIO', reply: 'de novo' })).json().error, 'ERR_ECHO_INTEGRATION_KEYWORD_IN_USE');
  assert.equal((await k.as(a.admin, 'POST', '/echo-integration/replies', { keyword: '' , reply: 'x' })).json().error, 'ERR_VALIDATION');

  // Company B sees none of it and cannot read or delete it by id.
  assert.deepEqual((await k.as(b.admin, 'GET', '/echo-integration/replies')).json(), { replies: [] });
  const theirs = await k.as(b.admin, 'GET', `/echo-integration/replies/${reply.id}`);
  assert.equal(theirs.statusCode, 404);
  assert.equal(theirs.json().error, 'ERR_NO_ECHO_INTEGRATION_REPLY_FOUND');
  assert.equal((await k.as(b.admin, 'DELETE', `/echo-integration/replies/${reply.id}`)).statusCode, 404);
  assert.equal((await k.as(a.admin, 'GET', `/echo-integration/replies/${reply.id}`)).statusCode, 200);

  // A user (not an admin) of company A reads, and may not create.
  const user = await k.createUser(a.admin);
  assert.equal((await k.as(user, 'GET', '/echo-integration/replies')).json().replies.length, 1);
  assert.equal((await k.as(user, 'POST', '/echo-integration/replies', { keyword: 'x', reply: 'y' })).statusCode, 403);
});

test('the integration type `echo` is offered by /queueIntegration', async () => {
  const res = await k.as(a.admin, 'POST', '/queueIntegration', { type: 'echo', name: 'Eco' });
  assert.equal(res.statusCode, 200);
  assert.equal(res.json().type, 'echo');
});
