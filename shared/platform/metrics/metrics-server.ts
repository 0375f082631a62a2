import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../logger.js';
import { isMetricsToken } from './metrics-token.js';
import { registry } from './registry.js';

export interface MetricsServer {
  /** Where it listens, e.g. http://127.0.0.1:9464 (the port is the real one when 0 was asked for). */
  url: string;
  close(): Promise<void>;
}

async function answer(req: IncomingMessage, res: ServerResponse, token: string, logger: Logger): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://metrics').pathname;
  if (req.method !== 'GET' || path !== '/metrics') {
    res.writeHead(404).end();
  } else if (!isMetricsToken(req.headers.authorization, token)) {
    res.writeHead(401, { 'WWW-Authenticate': 'Bearer realm="metrics"' }).end();
  } else {
    try {
      const text = await registry.metrics();
      res.writeHead(200, { 'Content-Type': registry.contentType, 'Cache-Control': 'no-store' }).end(text);
    } catch (err) {
      logger.error({ err }, 'metrics not collected');
      res.writeHead(500).end();
    }
  }
}

/**
 * GET /metrics of this process's registry, for a process with no HTTP API of its own (the workers):
 * plain node:http, the same bearer token as the API's /metrics, nothing else served.
 */
export async function startMetricsServer(options: { port: number; host: string; token: string; logger: Logger }): Promise<MetricsServer> {
  const server = createServer((req, res) => void answer(req, res, options.token, options.logger));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, resolve);
  });
  const { address, port } = server.address() as AddressInfo;
  return {
    url: `http://${address.includes(':') ? `[${address}]` : address}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
