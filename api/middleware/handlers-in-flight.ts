import type { Middleware } from 'koa';
import type { AppState } from '../context.js';

/**
 * The request handlers still running, whether or not their client is still connected. A shutdown waits
 * for them before it closes the connections they use: `server.close()` alone resolves once the sockets
 * are gone, and a client that gave up leaves its handler mid-way (a rendered QR not yet recorded) while
 * the database pool closes under it.
 */
export interface HandlersInFlight {
  middleware: Middleware<AppState>;
  /** Resolves once no handler is running. */
  settled(): Promise<void>;
}

export function handlersInFlight(): HandlersInFlight {
  let running = 0;
  let waiting: (() => void)[] = [];
  return {
    async middleware(_ctx, next) {
      running++;
      try {
        await next();
      } finally {
        running--;
        if (running === 0) {
          const done = waiting;
          waiting = [];
          for (const resolve of done) resolve();
        }
      }
    },
    settled: () => (running === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiting.push(resolve))),
  };
}
