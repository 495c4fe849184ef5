/**
 * The conversation-handler extension point in use (the example plugin of kernel/sdk/README.md): the bot
 * hands a ticket to an integration through a chatbot option, a third-party plugin takes the conversation,
 * answers it, and hands it back to the queue for a human, without any change to the automation plugin.
 */
import { waitFor, type TestKernel } from '@atendo/testing';
import { createTestKernel } from '@atendo/testing';
import orderStatusPlugin, { ORDER_STATUS_INTEGRATION } from './fixtures/order-status-plugin';
import { Graph, PLUGINS, sharedEnv, Tenant } from './harness';

describe('a third-party conversation handler', () => {
  let k: TestKernel;
  const graph = new Graph();
  beforeAll(async () => {
    await graph.start();
    k = await createTestKernel({ plugins: [...PLUGINS(), orderStatusPlugin], env: sharedEnv(graph.url) });
  });
  afterAll(async () => {
    await k?.close();
    await graph.stop();
  });

  test('takes the conversation from the bot, answers, and hands it back to the queue', async () => {
    const t = await Tenant.create(k, graph, '220000000000001', { greetingMessage: 'Olá!' });
    const q = await t.queue({
      name: 'Pedidos',
      greetingMessage: 'Pedidos:',
      chatbots: [
        { name: 'Consultar pedido', queueType: 'integration', optIntegrationId: ORDER_STATUS_INTEGRATION, greetingMessage: 'Informe "pedido <número>".' },
        { name: 'Outra coisa', greetingMessage: 'Aguarde um atendente.' },
      ],
    });
    const other = await t.queue({ name: 'Outros' });
    await t.setConnection({ queueIds: [q.id, other.id] });
    const c = t.customer('Paula');
    await c.ask('oi');
    await c.ask('1');
    expect(await c.ask('1')).toBe('Informe "pedido <número>".');
    expect(await c.ticket()).toMatchObject({ useIntegration: true, integrationId: ORDER_STATUS_INTEGRATION });
    expect(await c.ask('pedido 123')).toBe('Pedido 123: em separação.');
    expect(await c.ask('atendente')).toBe('Certo! Um atendente vai falar com você.');
    const ticket = await waitFor(async () => {
      const row = await c.ticket();
      return row.useIntegration === false ? row : undefined;
    }, 10_000);
    expect(ticket).toMatchObject({ status: 'pending', queueId: q.id, userId: null, integrationId: null });
    // Nobody answers any more: the ticket is for a human.
    await c.says('obrigada');
    await c.receivesNothing();
    // The last message's turn is recorded as done by nobody (no handler wanted it); under load it may land
    // after the quiet period above.
    const turns = await waitFor(async () => {
      const rows = (await k.db('conversationTurns').where({ ticketId: ticket.id }).orderBy('messageId').select('handledBy', 'state')) as { handledBy: string | null; state: string }[];
      return rows.length === 6 ? rows : undefined;
    }, 10_000);
    expect(turns!.map((r) => r.handledBy)).toEqual(['automation', 'automation', 'automation', 'order-status', 'order-status', null]);
    expect(turns!.every((r) => r.state === 'done')).toBe(true);
  });
});
