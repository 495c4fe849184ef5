import { ticketsKernel, createTenant, insertTicket } from './helpers';
test('smoke', async () => {
  const k = await ticketsKernel();
  try {
    const t = await createTenant(k);
    await insertTicket(k, t.companyId, { contactId: t.contact.id, whatsappId: t.conn.id, queueId: t.queueA.id, status: 'pending' });
    const r = await k.as(t.admin, 'GET', '/tickets?status=pending&queueIds=[1,2]');
    console.log(r.statusCode, r.body.slice(0, 1500));
    const s = await k.as(t.admin, 'GET', '/tickets?status=search&searchParam=maria');
    console.log(s.statusCode, s.body.slice(0, 300));
  } finally { await k.close(); }
}, 60000);
