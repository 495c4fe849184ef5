import { inspect } from 'node:util';

/**
 * The line printed when the kernel fails to start: always the error's message and stack (a thrown
 * non-Error, e.g. a library rejecting with `undefined`, is described as such), with its `cause` chain. In
 * production one JSON object (like every other line of a production log: level 60 = fatal), otherwise
 * readable text. A configuration error (ConfigError, config.ts) is the operator's to fix and its message says
 * everything: one line, no stack.
 */
export function bootFailure(err: unknown, json: boolean): string {
  const e = err instanceof Error ? err : new Error(`boot failed with a non-error value: ${inspect(err, { depth: 3 })}`);
  const causes: string[] = [];
  for (let c = (e as { cause?: unknown }).cause, depth = 0; c !== undefined && depth < 5; depth++) {
    causes.push(c instanceof Error ? (c.stack ?? `${c.name}: ${c.message}`) : inspect(c, { depth: 2 }));
    c = c instanceof Error ? (c as { cause?: unknown }).cause : undefined;
  }
  if (e.name === 'ConfigError') {
    const msg = `Atendo API failed to start: ${e.message}`;
    return json ? JSON.stringify({ level: 60, time: Date.now(), pid: process.pid, msg }) : msg;
  }
  if (json) {
    return JSON.stringify({
      level: 60,
      time: Date.now(),
      pid: process.pid,
      msg: `Atendo API failed to start: ${e.message}`,
      err: { type: e.name, message: e.message, stack: e.stack, ...(causes.length ? { causes } : {}) },
    });
  }
  return [`Atendo API failed to start: ${e.message}`, e.stack ?? '', ...causes.map((c) => `caused by: ${c}`)].filter(Boolean).join('\n');
}
