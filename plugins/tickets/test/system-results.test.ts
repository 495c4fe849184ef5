import type { TestKernel } from '@atendo/testing';
import { waitFor } from '@atendo/testing';
import { applyFailed, applySent, RESULTS_QUEUE } from '../src/services/messages';
import type { TicketsDeps } from '../src/services/deps';
import { ticketsKernel } from './helpers';

/**
 * Results of system sends (SDK `SendCommand` with `messageId` 0: password-reset codes from the connections
 * plugin) are not ticket messages: the result consumers ignore them, neither failing nor dead-lettering.
 */
describe('tickets: message.sent / message.failed of system sends (messageId 0)', () => {
  let k: TestKernel;
  beforeAll(async () => {
    k = await ticketsKernel();
  });
  afterAll(() => k.close());

  test('applySent / applyFailed answer undefined for messageId 0 and touch nothing', async () => {
    const deps = {} as TicketsDeps; // never reached
    await expect(applySent(deps, { companyId: 1, messageId: 0, wid: 'WAMID.RESET' })).resolves.toBeUndefined();
    await expect(applyFailed(deps, { companyId: 1, messageId: 0, error: { code: 'x' } })).resolves.toBeUndefined();
    // A negative id is still malformed.
    await expect(applySent(deps, { companyId: 1, messageId: -1, wid: 'W' })).rejects.toThrow(/malformed/);
  });

  test('through the bus: no dead letter for messageId 0, while a malformed result is dead-lettered', async () => {
    const before = (await k.bus.deadLetters(RESULTS_QUEUE)).length;
    await k.bus.publish('message.sent', { companyId: 1, messageId: 0, wid: 'WAMID.RESET', ack: 1 });
    await k.bus.publish('message.failed', { companyId: 1, messageId: 0, error: { code: 'ERR_SENDING_WAPP_MSG', text: 'x', retryable: false } });
    await k.bus.publish('message.sent', { companyId: 1, messageId: -7, wid: 'SENTINEL' });
    await waitFor(async () => (await k.bus.deadLetters(RESULTS_QUEUE)).some((m) => (m.payload as { wid?: string }).wid === 'SENTINEL'));
    await new Promise((r) => setTimeout(r, 150));
    const dead = (await k.bus.deadLetters(RESULTS_QUEUE)).slice(before);
    expect(dead.map((m) => (m.payload as { messageId: number }).messageId)).toEqual([-7]);
  });
});
