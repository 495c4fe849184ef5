/** Waiting helpers shared by the in-process kit (index.ts) and the remote one (remote.ts). */
import type { Socket } from 'socket.io-client';

/** Resolves with the first `event` payload `socket` receives, or rejects after `ms`. */
export function nextEvent<T = unknown>(socket: Socket, event: string, ms = 3000): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => {
      socket.off(event, on);
      reject(new Error(`no ${event} within ${ms} ms`));
    }, ms);
    const on = (payload: T) => {
      clearTimeout(t);
      socket.off(event, on);
      resolve(payload);
    };
    socket.on(event, on);
  });
}

/** Collects every `event` payload `socket` receives until `ms` passes. */
export async function collectEvents<T = unknown>(socket: Socket, event: string, ms: number): Promise<T[]> {
  const got: T[] = [];
  const on = (p: T) => got.push(p);
  socket.on(event, on);
  await new Promise((r) => setTimeout(r, ms));
  socket.off(event, on);
  return got;
}

/** Polls `check` until it returns truthy or `ms` passes. */
export async function waitFor<T>(check: () => T | Promise<T>, ms = 3000, step = 20): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, step));
  }
}
