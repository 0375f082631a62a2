import { createServer, type Server } from 'node:http';
import type { LookupFunction } from 'node:net';
import { expect } from 'chai';
import { checkEndpointUrl } from '../../shared/webhooks/check-endpoint-url.js';
import { httpWebhookClient, WebhookUndelivered } from '../../shared/webhooks/webhook-client.js';
import { rejection } from '../helpers/rejection.js';

/** A loopback server standing in for the internal service an attacker aims at: it counts connections. */
async function target(answer: (res: import('node:http').ServerResponse) => void = (res) => res.end('ok')): Promise<{ server: Server; port: number; connections: () => number }> {
  let connections = 0;
  const server = createServer((_req, res) => answer(res));
  server.on('connection', () => void connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port, connections: () => connections };
}

/** DNS as an attacker controls it: every name answers the given address. */
const resolvesTo =
  (address: string, family: 4 | 6 = 4): LookupFunction =>
  (_host, options, callback) => {
    if (options.all) (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
    else callback(null, address, family);
  };

// Literal forms of loopback, private, link-local, CGNAT and special addresses, in every spelling the URL parser accepts.
const LITERALS = [
  'http://127.0.0.1/',
  'http://127.1/',
  'http://127.255.255.254/',
  'http://2130706433/',
  'http://0x7f.1/',
  'http://0x7f000001/',
  'http://017700000001/',
  'http://0177.0.0.1/',
  'http://0/',
  'http://0.0.0.0/',
  'http://10.0.0.1/',
  'http://10.255.255.255/',
  'http://172.16.0.1/',
  'http://172.31.255.1/',
  'http://192.168.1.1/',
  'http://3232235777/',
  'http://169.254.169.254/latest/meta-data/',
  'http://0xa9.0xfe.0xa9.0xfe/',
  'http://100.64.0.1/',
  'http://100.127.255.254/',
  'http://198.18.0.1/',
  'http://224.0.0.1/',
  'http://255.255.255.255/',
  'http://[::1]/',
  'http://[::]/',
  'http://[0:0:0:0:0:0:0:1]/',
  'http://[::ffff:127.0.0.1]/',
  'http://[::ffff:7f00:1]/',
  'http://[::ffff:10.0.0.1]/',
  'http://[::ffff:169.254.169.254]/',
  'http://[::127.0.0.1]/',
  'http://[fc00::1]/',
  'http://[fd12:3456::1]/',
  'http://[fe80::1]/',
  'http://[ff02::1]/',
  'http://[64:ff9b::7f00:1]/',
  'http://localhost/',
  'http://LOCALHOST./',
  'http://api.localhost/',
  'http://①②⑦.0.0.1/',
];
const OTHER_REFUSALS = [
  'http://user:pw@example.com/',
  'http://:pw@example.com/',
  'ftp://example.com/',
  'file:///etc/passwd',
  'gopher://example.com/',
  'javascript:alert(1)',
  'not a url',
];

describe('webhook SSRF: private targets refused at registration and at delivery, no connection made', function () {
  this.timeout(30_000);

  it(`registration refuses ${LITERALS.length + OTHER_REFUSALS.length} loopback, private, link-local, numeric, credential and non-http URLs in production`, () => {
    const accepted = [...LITERALS.map((u) => u.replace(/^http:/, 'https:')), ...OTHER_REFUSALS].filter((url) => checkEndpointUrl(url, true) === undefined);
    expect(accepted).to.deep.equal([]);
    for (const url of ['https://erp.example.com/hooks', 'https://8.8.8.8/x', 'https://[2606:4700::1111]/', 'https://[::ffff:8.8.8.8]/']) {
      expect(checkEndpointUrl(url, true), url).to.equal(undefined);
    }
    // Allowed by config (tests, development, or WEBHOOK_ALLOW_PRIVATE=1): the local receiver is reachable.
    expect(checkEndpointUrl('http://127.0.0.1:9/x', false)).to.equal(undefined);
    expect(checkEndpointUrl('https://127.0.0.1:9/x', true, true)).to.equal(undefined);
  });

  it('delivery refuses every literal private target and every name resolving to one, without connecting', async () => {
    const internal = await target();
    try {
      const withPort = (url: string) => {
        const u = new URL(url);
        u.port = String(internal.port);
        return u.toString();
      };
      const cases: { url: string; lookup?: LookupFunction }[] = [
        ...LITERALS.map((url) => ({ url: withPort(url) })),
        // Names an attacker's DNS points at internal addresses (the check runs inside the socket's lookup).
        { url: `http://rebind.attacker.example:${internal.port}/`, lookup: resolvesTo('127.0.0.1') },
        { url: `http://metadata.attacker.example:${internal.port}/`, lookup: resolvesTo('169.254.169.254') },
        { url: `http://v6.attacker.example:${internal.port}/`, lookup: resolvesTo('::1', 6) },
        { url: `http://mapped.attacker.example:${internal.port}/`, lookup: resolvesTo('::ffff:127.0.0.1', 6) },
        { url: `http://lan.attacker.example:${internal.port}/`, lookup: resolvesTo('192.168.0.10') },
      ];
      const outcomes = await Promise.all(
        cases.map(async ({ url, lookup }) => {
          const client = httpWebhookClient(2000, { allowPrivate: false, lookup });
          const err = await rejection(client.post(url, '{}', { 'content-type': 'application/json' }), WebhookUndelivered);
          return { url, refused: /^refused/.test(err.message) };
        }),
      );
      expect(outcomes.filter((o) => !o.refused)).to.deep.equal([]);
      expect(outcomes.length).to.be.greaterThanOrEqual(30);
      expect(internal.connections(), 'connections reached the internal service').to.equal(0);

      // The same target with private addresses allowed (tests, development): delivered, so the refusals above were the guard.
      const allowed = httpWebhookClient(2000, { allowPrivate: true, lookup: resolvesTo('127.0.0.1') });
      expect(await allowed.post(`http://rebind.attacker.example:${internal.port}/`, '{}', {})).to.deep.equal({ status: 200 });
      expect(internal.connections()).to.equal(1);
    } finally {
      internal.server.close();
    }
  });

  it('a public name resolving to a public address is let through to connect', async () => {
    // The public resolution is simulated; the connection itself then fails or times out (no network needed).
    const client = httpWebhookClient(1500, { allowPrivate: false, lookup: resolvesTo('8.8.8.8') });
    const err = await rejection(client.post('http://public.example:1/', '{}', {}), WebhookUndelivered);
    expect(err.message).to.not.match(/^refused/);
  });

  it('a redirect to a private address is not followed: the attempt fails with the 302', async () => {
    const internal = await target();
    const redirecting = await target((res) => res.writeHead(302, { location: `http://127.0.0.1:${internal.port}/admin` }).end());
    try {
      const client = httpWebhookClient(2000, { allowPrivate: true });
      const err = await rejection(client.post(`http://127.0.0.1:${redirecting.port}/hooks`, '{}', {}), WebhookUndelivered);
      expect(err.statusCode).to.equal(302);
      expect(redirecting.connections()).to.equal(1);
      expect(internal.connections()).to.equal(0);
    } finally {
      internal.server.close();
      redirecting.server.close();
    }
  });
});
