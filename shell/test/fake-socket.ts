/**
 * A fake socket.io client for jsdom tests: records what the app emits and lets the test `push` server
 * events. Use as `const mockSocket = createFakeSocket(); jest.mock('socket.io-client', () => ({ io: jest.fn(() => mockSocket) }));`.
 */
type Handler = (payload: unknown) => void;

export function createFakeSocket() {
  return {
    handlers: new Map<string, Set<Handler>>(),
    connected: true,
    on(event: string, h: Handler) {
      if (!this.handlers.has(event)) this.handlers.set(event, new Set());
      this.handlers.get(event)!.add(h);
      return this;
    },
    off(event: string, h: Handler) {
      this.handlers.get(event)?.delete(h);
      return this;
    },
    emitted: [] as string[],
    emit(event: string) {
      this.emitted.push(event);
      return this;
    },
    connect() {
      return this;
    },
    disconnect() {
      return this;
    },
    removeAllListeners() {
      this.handlers.clear();
      return this;
    },
    /** The server pushes `event`. */
    push(event: string, payload: unknown) {
      for (const h of [...(this.handlers.get(event) ?? [])]) h(payload);
    },
  };
}
