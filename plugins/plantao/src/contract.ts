/**
 * The plantao (on-duty roster) plugin's contract (import it as `@atendo/plugin-plantao/contract`): the
 * wire shape of a roster entry, the weekday constants, the error codes and the notifier job. Types and
 * `define*` calls only.
 */
import { defineErrors, defineJob, Type, type Static } from '@atendo/sdk';

export const errors = defineErrors({
  ERR_NO_PLANTAO_FOUND: { status: 404, message: 'On-duty entry not found' },
});
declare module '@atendo/sdk' {
  // eslint-disable-next-line @typescript-eslint/no-empty-interface
  interface ErrorCodes extends Record<keyof typeof errors, true> {}
}

/** The seven weekdays, Monday to Sunday: `weekday` (Portuguese) and `weekdayEn` (lower-case English). */
export const WEEKDAYS = [
  { weekday: 'Segunda-feira', weekdayEn: 'monday' },
  { weekday: 'Terça-feira', weekdayEn: 'tuesday' },
  { weekday: 'Quarta-feira', weekdayEn: 'wednesday' },
  { weekday: 'Quinta-feira', weekdayEn: 'thursday' },
  { weekday: 'Sexta-feira', weekdayEn: 'friday' },
  { weekday: 'Sábado', weekdayEn: 'saturday' },
  { weekday: 'Domingo', weekdayEn: 'sunday' },
] as const;
export type WeekdayEn = (typeof WEEKDAYS)[number]['weekdayEn'];

/** `HH:MM` on a 24-hour clock. */
export const HHMM_PATTERN = '^([01][0-9]|2[0-3]):[0-5][0-9]$';

/** The validation messages of the spec (3-campaigns-and-tools.md §5, Plantão), sent as ERR_VALIDATION's message. */
export const PLANTAO_MESSAGES = {
  user: 'Informe o usuário',
  phone: 'Informe o telefone',
  interval: 'Informe o intervalo entre notificações',
  start: 'Informe o início do plantão',
  end: 'Informe o fim do plantão',
  oneDay: 'Pelo menos um dia da semana deve ter o horário de início e fim preenchido',
} as const;

/** One weekday of an entry: times `HH:MM` or null (both null: off duty that day). */
export const PlantaoDaySchema = Type.Object(
  {
    weekday: Type.String({ maxLength: 30 }),
    weekdayEn: Type.Union(WEEKDAYS.map((d) => Type.Literal(d.weekdayEn))),
    startTime: Type.Union([Type.String({ pattern: HHMM_PATTERN }), Type.Null()]),
    endTime: Type.Union([Type.String({ pattern: HHMM_PATTERN }), Type.Null()]),
  },
  { additionalProperties: false },
);
export type PlantaoDay = Static<typeof PlantaoDaySchema>;

/** A roster entry as every answer shows it (`user`: the on-duty person). Timestamps ISO 8601. */
export const PlantaoSchema = Type.Object(
  {
    id: Type.Integer(),
    companyId: Type.Integer(),
    userId: Type.Integer(),
    user: Type.Object({ id: Type.Integer(), name: Type.String() }),
    phone: Type.String(),
    /** Minutes between notifications (>= 1). */
    interval: Type.Integer(),
    /** Seven entries, Monday to Sunday. */
    days: Type.Array(PlantaoDaySchema),
    /** When this person was last notified (null: never). */
    lastNotifiedAt: Type.Union([Type.String(), Type.Null()]),
    createdAt: Type.String(),
    updatedAt: Type.String(),
  },
  { additionalProperties: false },
);
export type Plantao = Static<typeof PlantaoSchema>;

/** The socket.io event of the company's roster: `{action: 'create'|'update', record}` / `{action: 'delete', id}`. */
export const plantaoEvent = (companyId: number) => `company-${companyId}-plantao`;

/**
 * The notifier tick (`every` minute, once across nodes): for every roster entry whose hours contain the
 * current time of its company's time zone, when pending tickets wait longer than its interval and it was
 * not notified within its interval, sends it one WhatsApp text from the company's default connection.
 * Data `{}`; tests schedule it to run a tick at once.
 */
export const plantaoTick = defineJob<Record<string, never>>('plantao.tick');
