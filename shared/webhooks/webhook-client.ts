/**
 * How deliveries reach a merchant's endpoint: one POST with the signed headers. Any answer other than
 * 2xx, a timeout or a network error is WebhookUndelivered (retried); the client never follows redirects,
 * so an endpoint cannot bounce a signed event elsewhere.
 *
 * SSRF (issue #8): unless `allowPrivate`, a URL naming a loopback, private or link-local address, a
 * `localhost` name, or a name that RESOLVES to such an address is refused before any connection. The check
 * runs inside the socket's own lookup, so the address checked is the address connected to (no second DNS
 * answer can slip in between: DNS rebinding).
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isLocalName, isPublicAddress } from './private-address.js';

export interface WebhookClient {
  post(url: string, body: string, headers: Record<string, string>): Promise<{ status: number }>;
}

export class WebhookUndelivered extends Error {
  constructor(
    message: string,
    readonly statusCode?: number,
  ) {
    super(message);
    this.name = 'WebhookUndelivered';
  }
}

export interface WebhookClientOptions {
  /** Let deliveries reach non-public addresses (`WEBHOOK_ALLOW_PRIVATE`: local receivers in tests and development). */
  allowPrivate?: boolean;
  /** Name resolution; tests inject one that answers private addresses. Defaults to `dns.lookup`. */
  lookup?: LookupFunction;
}

class PrivateTarget extends Error {}

/** A lookup that resolves every address of the name and fails when any of them is not public. */
export function publicOnlyLookup(resolve: LookupFunction = dnsLookup as LookupFunction): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const all = (Array.isArray(addresses) ? addresses : [{ address: addresses, family: 4 }]) as LookupAddress[];
      const refused = all.find((a) => !isPublicAddress(a.address));
      if (refused || all.length === 0) {
        return callback(new PrivateTarget(`refused: ${hostname} resolves to ${refused?.address ?? 'nothing'}, not a public address`), '', 0);
      }
      // net asks for one address or (autoSelectFamily) all of them.
      if (options.all) (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, all);
      else callback(null, all[0]!.address, all[0]!.family);
    });
  };
}

export function httpWebhookClient(timeoutMs: number, options: WebhookClientOptions = {}): WebhookClient {
  const guarded = options.allowPrivate ? options.lookup : publicOnlyLookup(options.lookup);
  return {
    async post(url, body, headers) {
      const target = new URL(url);
      const host = target.hostname.replace(/^\[|\]$/g, '');
      if (!options.allowPrivate && (isLocalName(host) || (isIP(host) !== 0 && !isPublicAddress(host)))) {
        // An IP literal skips the socket's lookup: judged here, before connecting.
        throw new WebhookUndelivered(`refused: ${host} is not a public address`);
      }
      if (target.protocol !== 'https:' && target.protocol !== 'http:') throw new WebhookUndelivered(`refused: ${target.protocol} is not http(s)`);
      let res: IncomingMessage;
      try {
        res = await send(target, body, { ...headers, 'user-agent': 'autofactura-webhooks/1' }, timeoutMs, guarded);
      } catch (err) {
        if (err instanceof PrivateTarget) throw new WebhookUndelivered(err.message);
        const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
        throw new WebhookUndelivered(timedOut ? `no answer within ${timeoutMs} ms` : `unreachable: ${(err as Error).message}`);
      }
      // The answer's body is not read: only the status matters, and a redirect is an answer, not followed.
      res.destroy();
      const status = res.statusCode ?? 0;
      if (status < 200 || status > 299) throw new WebhookUndelivered(`answered HTTP ${status}`, status);
      return { status };
    },
  };
}

function send(target: URL, body: string, headers: Record<string, string>, timeoutMs: number, lookup: LookupFunction | undefined): Promise<IncomingMessage> {
  const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        signal: AbortSignal.timeout(timeoutMs),
        agent: false,
        ...(lookup ? { lookup } : {}),
      },
      resolve,
    );
    req.on('error', reject);
    req.end(body);
  });
}
