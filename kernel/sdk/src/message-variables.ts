/**
 * The message variables of outgoing texts (spec 3-campaigns-and-tools.md §3 "Message variables offered for
 * insertion": firstName, name, userName, ms, protocol, date, hour, ticket_id, queue, connection), filled in
 * one place: the tickets plugin applies `fillMessageVariables` to every outgoing text it stores (an
 * attendant's message, a quick message, greeting / transfer / farewell, forwards, and whatever bot,
 * schedule or campaign sends through it). Pure: the clock and the time zone are parameters.
 */

/** What the variables are filled from; absent values give ''. */
export interface MessageVariableContext {
  /** The contact's full name (`{{name}}`; `{{firstName}}` is its first word). */
  contactName?: string | null;
  /** The attendant's name (`{{userName}}`; `{{user}}` is kept for older templates). */
  userName?: string | null;
  /** The ticket's department (`{{queue}}`). */
  queueName?: string | null;
  /** The connection's name (`{{connection}}`). */
  connectionName?: string | null;
  /** The ticket id (`{{ticket_id}}`, and the end of `{{protocol}}`). */
  ticketId?: number | null;
  /** The company's name (`{{name_company}}`). */
  companyName?: string | null;
  /** The contact's number (`{{number}}`) and e-mail (`{{email}}`). */
  number?: string | null;
  email?: string | null;
}

/** The IANA time zone the greeting, date and hour follow (TZ_BUSINESS, default America/Sao_Paulo). */
export function businessTimeZone(): string {
  return process.env.TZ_BUSINESS || 'America/Sao_Paulo';
}

/** One formatter per time zone (building an Intl.DateTimeFormat costs far more than formatting with it). */
const formatters = new Map<string, Intl.DateTimeFormat>();

/** Date parts of `now` in `timeZone` (an unknown zone throws RangeError, as Intl does). */
function parts(now: Date, timeZone: string): Record<'year' | 'month' | 'day' | 'hour' | 'minute' | 'second', string> {
  let fmt = formatters.get(timeZone);
  if (!fmt) {
    fmt = new Intl.DateTimeFormat('en-GB', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
    if (formatters.size >= 1000) formatters.clear();
    formatters.set(timeZone, fmt);
  }
  const out: Record<string, string> = {};
  for (const p of fmt.formatToParts(now)) out[p.type] = p.value;
  return out as Record<'year' | 'month' | 'day' | 'hour' | 'minute' | 'second', string>;
}

/** The greeting of `{{ms}}` for an hour of the day (0-23): Bom dia (6-11), Boa tarde (12-17), Boa noite (18-23), Boa madrugada (0-5). */
export function greetingForHour(hour: number): string {
  if (hour >= 6 && hour < 12) return 'Bom dia';
  if (hour >= 12 && hour < 18) return 'Boa tarde';
  if (hour >= 18) return 'Boa noite';
  return 'Boa madrugada';
}

/**
 * The value of every variable at `now`: `ms` (greeting), `date` (dd/MM/yyyy), `hour` (HH:mm:ss),
 * `data_hora` (date às hour), `protocol` (yyyyMMddHHmmss followed by the ticket id), `ticket_id`, `name`,
 * `firstName`, `fullName`, `userName` / `user`, `queue`, `connection`, `name_company`, `number`, `email`.
 */
export function messageVariables(ctx: MessageVariableContext, now: Date = new Date(), timeZone: string = businessTimeZone()): Record<string, string> {
  const p = parts(now, timeZone);
  const full = (ctx.contactName ?? '').trim();
  const date = `${p.day}/${p.month}/${p.year}`;
  const hour = `${p.hour}:${p.minute}:${p.second}`;
  const ticketId = ctx.ticketId !== null && ctx.ticketId !== undefined ? String(ctx.ticketId) : '';
  return {
    ms: greetingForHour(Number(p.hour)),
    name: full,
    firstName: full.split(/\s+/)[0] ?? '',
    fullName: full,
    userName: (ctx.userName ?? '').trim(),
    user: (ctx.userName ?? '').trim(),
    queue: (ctx.queueName ?? '').trim(),
    connection: (ctx.connectionName ?? '').trim(),
    ticket_id: ticketId,
    protocol: `${p.year}${p.month}${p.day}${p.hour}${p.minute}${p.second}${ticketId}`,
    date,
    hour,
    data_hora: `${date} às ${hour}`,
    name_company: (ctx.companyName ?? '').trim(),
    number: (ctx.number ?? '').trim(),
    email: (ctx.email ?? '').trim(),
  };
}

/**
 * True when `text` may hold a `{{variable}}` (it has `{{`): only then does filling it need the contact,
 * user, queue and company; a text without is sent as written.
 */
export function hasMessageVariables(text: string | null | undefined): boolean {
  return Boolean(text) && text!.includes('{{');
}

/**
 * `text` with every `{{variable}}` (spaces inside the braces allowed, names case-insensitive) replaced by its
 * value; unknown `{{...}}` are left as written. A text without `{{` is returned as is.
 */
export function fillMessageVariables(text: string, ctx: MessageVariableContext, now: Date = new Date(), timeZone: string = businessTimeZone()): string {
  if (!hasMessageVariables(text)) return text;
  const vars = messageVariables(ctx, now, timeZone);
  const byLower = new Map(Object.entries(vars).map(([k, v]) => [k.toLowerCase(), v]));
  return text.replace(/\{\{\s*([A-Za-z_]+)\s*\}\}/g, (m, key: string) => byLower.get(key.toLowerCase()) ?? m);
}
