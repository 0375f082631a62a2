/**
 * A fake of the CSF adapter (contract in shared/adapters/csf/http-csf-client.ts), served over real HTTP on
 * loopback. It is the development default (no CSF_BASE_URL outside production) and what tests script:
 * each RFC can be given a queue of answers (slow, 5xx, garbage, other data) before the normal one.
 */
import { createServer, type Server } from 'node:http';
import type { CsfData } from '../shared/adapters/csf/csf-client.js';

export type FakeCsfAnswer =
  | { kind: 'ok'; data?: Partial<CsfData> }
  | { kind: 'status'; status: number }
  | { kind: 'garbage' }
  | { kind: 'slow'; ms: number }
  /** The normal answer once `until` settles: a test keeps a call in flight for as long as it needs, without a timer. */
  | { kind: 'held'; until: Promise<unknown> };

export interface FakeCsfServer {
  url: string;
  /** Answers for the next calls about `rfc`, in order; afterwards the taxpayer's normal data. */
  script(rfc: string, ...answers: FakeCsfAnswer[]): void;
  setTaxpayer(data: CsfData): void;
  calls: { rfc: string; idCif: string }[];
  close(): Promise<void>;
}

/** SAT's public test taxpayers (../shared/sat/test-csd). Any 11-digit idCIF is accepted for them. */
const TAXPAYERS: CsfData[] = [
  { rfc: 'EKU9003173C9', legalName: 'ESCUELA KEMPER URGATE', zip: '42501', status: 'ACTIVO', regimes: [{ code: '601', since: '2019-01-01' }] },
  {
    rfc: 'CACX7605101P8',
    legalName: 'XOCHILT CASAS CHAVEZ',
    zip: '36257',
    status: 'ACTIVO',
    regimes: [
      { code: '612', since: '2015-03-01' },
      { code: '626', since: '2022-01-01' },
    ],
  },
];

export async function startFakeCsfServer(port = 0): Promise<FakeCsfServer> {
  const taxpayers = new Map(TAXPAYERS.map((t) => [t.rfc, t]));
  const scripts = new Map<string, FakeCsfAnswer[]>();
  const calls: { rfc: string; idCif: string }[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    if (url.pathname !== '/v1/csf') {
      res.writeHead(404).end();
      return;
    }
    const rfc = url.searchParams.get('rfc') ?? '';
    const idCif = url.searchParams.get('idCif') ?? '';
    calls.push({ rfc, idCif });
    const answer = scripts.get(rfc)?.shift() ?? { kind: 'ok' };
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    switch (answer.kind) {
      case 'status':
        json(answer.status, { error: `scripted ${answer.status}` });
        return;
      case 'garbage':
        res.writeHead(200, { 'content-type': 'application/json' }).end('<html>Servicio no disponible</html>');
        return;
      case 'slow': {
        const timer = setTimeout(() => json(200, taxpayers.get(rfc) ?? {}), answer.ms);
        res.on('close', () => clearTimeout(timer));
        return;
      }
      case 'held': {
        const send = () => {
          if (!res.destroyed) json(200, taxpayers.get(rfc) ?? {});
        };
        void answer.until.then(send, send);
        return;
      }
      case 'ok': {
        const known = taxpayers.get(rfc);
        if (!known || !/^[0-9]{11}$/.test(idCif)) {
          json(404, { error: 'not_found' });
          return;
        }
        json(200, { ...known, ...answer.data });
      }
    }
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('fake CSF server has no port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    script: (rfc, ...answers) => scripts.set(rfc, [...(scripts.get(rfc) ?? []), ...answers]),
    setTaxpayer: (data) => taxpayers.set(data.rfc, data),
    calls,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
