import { isIP } from 'node:net';
import type { ErrorDetail } from '../platform/errors.js';
import { isLocalName, isPublicAddress } from './private-address.js';

/**
 * An endpoint URL the service will POST signed events to. In production: https only. Never credentials in the
 * URL. Unless private targets are allowed (`WEBHOOK_ALLOW_PRIVATE`, on outside production): no loopback,
 * private, link-local or other special address written as such, in any form the URL parser accepts
 * (`2130706433`, `0x7f.1`, `017700000001`, `[::ffff:127.0.0.1]` all parse to a loopback address), and no
 * `localhost` names. Names that resolve to such addresses are refused at delivery time (webhook-client.ts).
 */
export function checkEndpointUrl(raw: string, production: boolean, allowPrivate = !production): ErrorDetail | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { field: 'url', code: 'invalid_format', message: 'url must be an absolute URL.' };
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && !production)) {
    return { field: 'url', code: 'invalid_format', message: production ? 'url must use https.' : 'url must use http or https.' };
  }
  if (url.username || url.password) return { field: 'url', code: 'invalid_format', message: 'url must not carry credentials.' };
  if (!allowPrivate) {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const local = isLocalName(host) || (isIP(host) !== 0 && !isPublicAddress(host));
    if (local) return { field: 'url', code: 'not_allowed', message: 'url must be reachable on the public internet.' };
  }
  return undefined;
}
