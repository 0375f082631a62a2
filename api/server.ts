import type { Server } from 'node:http';
import { csfClientFromConfig } from '../shared/adapters/csf/csf-client-from-config.js';
import { fileStoreFromConfig } from '../shared/platform/storage/file-store-from-config.js';
import { satCatalogs } from '../shared/sat/catalogs.js';
import type { Runtime } from '../shared/platform/runtime.js';
import { createApp } from './app.js';
import { handlersInFlight } from './middleware/handlers-in-flight.js';
import { StartupHint } from '../shared/platform/check-services.js';

export interface RunningApi {
  server: Server;
  /** Stops accepting connections; resolves once every request has been answered and every handler has finished. */
  close(): Promise<void>;
}

/** Starts the HTTP API on the runtime's connections; resolves once it listens. */
export async function startApi(runtime: Runtime, port = runtime.config.port, host = runtime.config.host): Promise<RunningApi> {
  const handlers = handlersInFlight();
  const app = createApp({ ...runtime, catalogs: satCatalogs(), csf: csfClientFromConfig(runtime.config), files: fileStoreFromConfig(runtime.config, runtime.db) }, handlers);
  const server = app.listen(port, host);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', (err: NodeJS.ErrnoException) => {
      reject(
        err.code === 'EADDRINUSE'
          ? new StartupHint(
              `Port ${port} on ${host} is already in use (PORT): another copy of the service may be running; stop it, or start this one with PORT=${Number(port) + 1}.`,
            )
          : err,
      );
    });
  });
  return {
    server,
    async close() {
      await closeServer(server);
      // A handler whose client left is not held by any socket: it still finishes before the pools close.
      await handlers.settled();
    },
  };
}

/** Stops accepting connections and resolves once every connection is closed. */
function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    // A keep-alive connection busy now goes idle after its answer: close it then, not at keepAliveTimeout.
    const sweep = setInterval(() => server.closeIdleConnections(), 20);
    server.close(() => {
      clearInterval(sweep);
      resolve();
    });
    server.closeIdleConnections();
  });
}
