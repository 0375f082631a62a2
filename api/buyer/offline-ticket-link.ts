import { AppError } from '../../shared/platform/errors.js';
import { encryptionKeyring } from '../../shared/platform/crypto/encrypt-at-rest.js';
import { OFFLINE_LINK_VERSION, offlineTicketSigned, readOfflineTicket } from '../../shared/offline/offline-ticket.js';
import { checkOfflineTicket } from '../../shared/offline/offline-ticket-check.js';
import { loadOfflineKeyState } from '../../shared/repositories/offline-keys.js';
import { tokenForOfflineTicket } from '../../shared/repositories/qr-transactions.js';
import { qrContent, signQrToken } from '../../shared/qr/qr-link.js';
import type { ApiDeps } from '../deps.js';

export function isOfflineTicketLink(query: { v?: unknown }): boolean {
  return query.v === OFFLINE_LINK_VERSION;
}

/**
 * Where a scanned offline ticket (format version 2) leads: the link of the sale that caught it up, which
 * the page and the buyer's API treat as any other. Before the sale arrives: 404 `offline_sale_pending`
 * (the store has not sent it yet), or 410 when it never can be (window passed, key revoked). A ticket not
 * signed by a known offline key is a bad link, like a bad v=1 signature: the page says nothing about keys.
 */
export async function offlineTicketTarget(deps: ApiDeps, query: Record<string, unknown>, now: Date = new Date()): Promise<string> {
  const read = readOfflineTicket(query);
  const key = read.ok ? await loadOfflineKeyState(deps.db, read.ticket.keyId, encryptionKeyring(deps.config)) : undefined;
  if (!read.ok || !key || !offlineTicketSigned(read.params, key.secret)) {
    throw new AppError(400, 'invalid_signature', 'This QR link is not valid; scan the QR again.');
  }
  const token = await tokenForOfflineTicket(deps.db, key.id, read.ticket.saleId);
  if (token) return qrContent(deps.config.publicBaseUrl, signQrToken(token, deps.config.qrHmacKey));
  const check = checkOfflineTicket(read.ticket, read.params, key, undefined, now);
  if (!check.ok) {
    throw new AppError(410, 'offline_ticket_closed', 'The store did not send this sale in time to invoice it; ask the store for help.');
  }
  throw new AppError(404, 'offline_sale_pending', 'The store has not sent this sale yet: it was made while the store was offline. Try again later.');
}
