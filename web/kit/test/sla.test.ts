/** The SLA badge's rule (web-kit sla.tsx): which alert a ticket shows at a given time. */
import { slaAlert, type SlaTicket } from '../src/sla';

const NOW = new Date('2026-11-21T15:00:00.000Z');
const at = (min: number) => new Date(NOW.getTime() + min * 60_000).toISOString();
const target = (warn: number, due: number, done: number | null = null, breachedAt: string | null = null) => ({ minutes: 60, warnAt: at(warn), dueAt: at(due), doneAt: done === null ? null : at(done), breachedAt, state: 'ok' as const });
const sla = (firstResponse: SlaTicket['firstResponse'], resolution: SlaTicket['resolution'] = null): SlaTicket => ({ ticketId: 1, uuid: 'u', queueId: 1, userId: null, startedAt: at(-60), firstResponse, resolution });

test('no SLA, no target near, or targets done: no alert', () => {
  expect(slaAlert(undefined, NOW)).toBeNull();
  expect(slaAlert(sla(null, null), NOW)).toBeNull();
  expect(slaAlert(sla(target(1, 5)), NOW)).toBeNull();
  expect(slaAlert(sla(target(-10, -5, -6)), NOW)).toBeNull();
  expect(slaAlert(sla({ ...target(-10, -5), dueAt: null, warnAt: null }), NOW)).toBeNull();
});

test('warning between the warn and the due time, with the minutes left rounded up', () => {
  expect(slaAlert(sla(target(-1, 4.2)), NOW)).toEqual({ level: 'warning', target: 'firstResponse', dueAt: at(4.2), minutes: 5 });
  expect(slaAlert(sla(target(0, 3)), NOW)?.level).toBe('warning');
});

test('breached at the due time, or when the server recorded it; negative minutes since', () => {
  expect(slaAlert(sla(target(-10, 0)), NOW)).toEqual({ level: 'breached', target: 'firstResponse', dueAt: at(0), minutes: 0 });
  expect(slaAlert(sla(target(-10, -2.5)), NOW)?.minutes).toBe(-2);
  expect(slaAlert(sla(target(-10, 1, null, at(-1))), NOW)?.level).toBe('breached');
});

test('the most urgent target wins: breached over warning, then the earlier due time', () => {
  expect(slaAlert(sla(target(-1, 5), target(-30, -1)), NOW)?.target).toBe('resolution');
  expect(slaAlert(sla(target(-1, 9), target(-2, 3)), NOW)).toMatchObject({ level: 'warning', target: 'resolution' });
});
