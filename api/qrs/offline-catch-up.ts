import { AppError } from '../../shared/platform/errors.js';
import { encryptionKeyring } from '../../shared/platform/crypto/encrypt-at-rest.js';
import { toFixed6 } from '../../shared/domain/money.js';
import { readOfflineTicket, type OfflineTicketParams } from '../../shared/offline/offline-ticket.js';
import { checkOfflineTicket, type TicketRefusal } from '../../shared/offline/offline-ticket-check.js';
import { loadOfflineKeyState } from '../../shared/repositories/offline-keys.js';
import type { ApiKeyPrincipal } from '../../shared/repositories/api-keys.js';
import type { QrCreateDraft } from '../../shared/qr/qr-request.js';
import type { ApiDeps } from '../deps.js';

/** What a sale that catches up an offline ticket records: the key, the moment of sale, the printed code. */
export interface OfflineBinding {
  keyId: string;
  soldAt: Date;
  shortCode: string;
}

const PARAMS = ['v', 'k', 'w', 'a', 's', 'm'] as const;

/** The six parameters of a ticket's link (the whole link or its query); undefined when one is missing or repeated. */
export function offlineTicketParams(link: string): Partial<OfflineTicketParams> | undefined {
  const query = link.includes('?') ? link.slice(link.indexOf('?') + 1) : link;
  let search: URLSearchParams;
  try {
    search = new URLSearchParams(query.split('#')[0]);
  } catch {
    return undefined;
  }
  const params: Partial<Record<(typeof PARAMS)[number], string>> = {};
  for (const name of PARAMS) {
    const values = search.getAll(name);
    if (values.length !== 1) return undefined;
    params[name] = values[0];
  }
  return params;
}

const REFUSALS: Record<TicketRefusal, () => AppError> = {
  invalid: () => new AppError(422, 'offline_ticket_invalid', 'The offline ticket was not signed by an offline key of this store; it may have been altered.'),
  sold_in_future: () => new AppError(422, 'offline_ticket_invalid', "The offline ticket's moment of sale is in the future; check the point of sale's clock."),
  window_passed: () => new AppError(422, 'offline_ticket_window_passed', 'The offline ticket is older than its key allows: it can no longer be invoiced.'),
  key_revoked: () => new AppError(422, 'offline_key_revoked', 'The offline key that signed this ticket was revoked: tickets it signed are no longer accepted.'),
  sale_id_differs: () =>
    new AppError(422, 'offline_ticket_mismatch', 'sale_id is not the sale id signed in the offline ticket.', {
      details: [{ field: 'sale_id', code: 'differs_from_ticket', message: 'Send the sale id the ticket was printed with.' }],
    }),
  amount_differs: () =>
    new AppError(422, 'offline_ticket_mismatch', 'amount is not the total signed in the offline ticket.', {
      details: [{ field: 'amount', code: 'differs_from_ticket', message: 'The buyer was printed another total; a changed sale needs a new ticket.' }],
    }),
  currency_differs: () =>
    new AppError(422, 'offline_ticket_mismatch', 'currency is not the currency of the offline key that signed the ticket.', {
      details: [
        { field: 'currency', code: 'differs_from_ticket', message: "A ticket's total is in its key's currency (the key's `currency`); sell in another with a key made for it." },
      ],
    }),
};

/**
 * The checks of a sale that names an offline ticket: well formed (400), signed by this store's offline key,
 * within its window and its key's revocation terms, for this sale id and this total (422). Undefined when
 * the sale names no ticket.
 */
export async function offlineBinding(deps: ApiDeps, principal: ApiKeyPrincipal, draft: QrCreateDraft, now: Date): Promise<OfflineBinding | undefined> {
  if (draft.offline_ticket === undefined) return undefined;
  const read = readOfflineTicket(offlineTicketParams(draft.offline_ticket) ?? {});
  if (!read.ok) {
    const detail =
      read.reason === 'sale_id_unwritable'
        ? { field: 'offline_ticket', code: 'invalid_for_cfdi', message: `offline_ticket's sale id (s) ${read.problem} (it is the sale's sale_id, written to the CFDI).` }
        : { field: 'offline_ticket', code: 'invalid_format', message: 'offline_ticket must be the link printed on the ticket (v=2 with k, w, a, s and m).' };
    throw new AppError(400, 'validation_failed', 'The request has invalid or missing fields.', { details: [detail] });
  }
  const key = await loadOfflineKeyState(deps.db, read.ticket.keyId, encryptionKeyring(deps.config));
  const claim = { merchantId: principal.merchantId, saleId: draft.sale_id, amount: toFixed6(draft.amount), currency: draft.currency };
  const check = checkOfflineTicket(read.ticket, read.params, key, claim, now);
  if (!check.ok) throw REFUSALS[check.refusal]();
  return { keyId: read.ticket.keyId, soldAt: check.soldAt, shortCode: check.shortCode };
}

export function ticketAlreadyBound(): AppError {
  return new AppError(409, 'offline_ticket_already_bound', 'This offline ticket was already caught up by another sale; a ticket is caught up once.');
}
