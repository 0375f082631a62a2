import { randomUUID } from 'node:crypto';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import type { QrCreateRequest } from '../../shared/qr/qr-request.js';
import { sampleSale } from '../fixtures/sample-sale.js';
import { call } from './http.js';

/** The sample sale with a unique sale_id, expiring in 5 days, with optional overrides. */
export function qrBody(storeUid: string, overrides: Partial<QrCreateRequest> = {}): QrCreateRequest {
  return { ...sampleSale(storeUid, new Date(Date.now() + 5 * 86_400_000), `sale-${randomUUID()}`), ...overrides };
}

export function qrHeaders(account: BootstrapResult, key: string = randomUUID(), extra: Record<string, string> = {}): Record<string, string> {
  return { 'X-API-Key': account.apiKey, 'X-TIME-ZONE': 'America/Mexico_City', 'idempotency-key': key, ...extra };
}

export function postQr(account: BootstrapResult, body: unknown, key?: string, extra: Record<string, string> = {}) {
  return call('POST', '/v1/qrs', { headers: qrHeaders(account, key, extra), body });
}
