import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

export type FaultMode = 'pass' | 'hang' | '5xx' | 'garbage' | 'co1000';

/**
 * An HTTP proxy in front of a fake (the PAC, the CSF service) that the chaos run switches between faults:
 * `hang` (never answers), `5xx` (503), `garbage` (200 with HTML), `co1000` (SW's "Error No Controlado", as the
 * fake PAC answers it), `pass`. Records each call with its path
 * and query and, for a CFDI, its Folio.
 */
export interface FaultProxy {
  url: string;
  mode: FaultMode;
  calls: { at: number; url: string; folio: string | undefined; mode: FaultMode }[];
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export async function startFaultProxy(upstream: string): Promise<FaultProxy> {
  const hung = new Set<ServerResponse>();
  const proxy: FaultProxy = {
    url: '',
    calls: [],
    get mode() {
      return mode;
    },
    set mode(next: FaultMode) {
      mode = next;
      // Leaving `hang`: the held connections are cut, as a PAC coming back would drop them.
      if (next !== 'hang') for (const res of hung) res.destroy();
      if (next !== 'hang') hung.clear();
    },
    close: async () => {
      for (const res of hung) res.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  let mode: FaultMode = 'pass';
  const server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const folio = /Folio="([^"]+)"/.exec(body.toString('latin1'))?.[1];
      proxy.calls.push({ at: Date.now(), url: req.url ?? '/', folio, mode });
      switch (mode) {
        case 'hang':
          hung.add(res);
          return;
        case '5xx':
          return void res.writeHead(503, { 'content-type': 'application/json' }).end('{"status":"error","message":"Service Unavailable"}');
        case 'garbage':
          return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>502 Bad Gateway</body></html>');
        case 'co1000':
          return void res
            .writeHead(400, { 'content-type': 'application/json' })
            .end(
              '{"status":"error","message":"CO1000 - Error No Controlado. Si el problema persiste, por favor contacte a soporte técnico para recibir ayuda al respecto.","messageDetail":null,"data":null}',
            );
        default: {
          const headers: Record<string, string> = {};
          for (const name of ['authorization', 'content-type', 'customid']) if (typeof req.headers[name] === 'string') headers[name] = req.headers[name];
          const answer = await fetch(`${upstream}${req.url ?? '/'}`, { method: req.method, headers, body: req.method === 'GET' || !body ? undefined : new Uint8Array(body) });
          res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/octet-stream' }).end(Buffer.from(await answer.arrayBuffer()));
        }
      }
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return proxy;
}
