/**
 * Several tickets as one invoice (issue #17), for the buyer's page and the merchant's API alike: each
 * further ticket must still be invoiceable and combinable with the first; what is not is refused with one
 * field-level detail per ticket (422 `tickets_not_combinable`), and nothing is recorded.
 */
import { AppError, type ErrorDetail } from '../../shared/platform/errors.js';
import { combineTickets, ticketMismatches } from '../../shared/invoices/combine-tickets.js';
import { isExpired } from '../../shared/domain/qr-lifecycle.js';
import type { TicketProblem } from '../../shared/repositories/invoices.js';
import type { QrTransactionRecord } from '../../shared/repositories/qr-transactions.js';
import type { Sale } from '../../shared/repositories/sales.js';

/** Where each further ticket was named in the request (`index` 1 is the first further ticket). */
export type TicketField = (index: number) => string;

const STATE_MESSAGES: Record<TicketProblem['reason'] | 'store_inactive', { code: string; message: string }> = {
  not_found: { code: 'qr_not_found', message: 'No sale has this ticket.' },
  invoiced: { code: 'qr_already_invoiced', message: 'This ticket was already invoiced.' },
  cancelled: { code: 'qr_cancelled', message: 'The store cancelled this ticket.' },
  already_confirmed: { code: 'already_confirmed', message: 'This ticket is being invoiced in another confirmation.' },
  globally_invoiced: { code: 'qr_globally_invoiced', message: "This ticket was reported in the store's global invoice." },
  expired: { code: 'qr_expired', message: 'This ticket has expired.' },
  store_inactive: { code: 'store_inactive', message: 'This store cannot issue invoices at the moment.' },
};

/** What stops one further ticket from being invoiced now, as the first ticket's routes would say it. */
function stateProblem(sale: Sale, now: Date): keyof typeof STATE_MESSAGES | undefined {
  const t = sale.record.transaction;
  if (t.status === 'INVOICED') return 'invoiced';
  if (t.status === 'CANCELLED') return 'cancelled';
  if (t.global_invoice_id) return 'globally_invoiced';
  if (isExpired(t, now)) return 'expired';
  if (t.confirmed_at) return 'already_confirmed';
  if (sale.merchant.status !== 'ACTIVE' || sale.issuer.status !== 'ACTIVE') return 'store_inactive';
  return undefined;
}

export function ticketsNotCombinable(details: ErrorDetail[]): AppError {
  return new AppError(422, 'tickets_not_combinable', 'Some tickets cannot be invoiced together with the first one.', { details });
}

/** The refusal for tickets found taken while the confirmation was being recorded (someone else claimed one first). */
export function ticketsTaken(problems: TicketProblem[], field: TicketField): AppError {
  return ticketsNotCombinable(problems.map((p) => ({ field: field(p.index), ...STATE_MESSAGES[p.reason] })));
}

/** A further ticket as the request named it: its sale, or why it could not be found. */
export type FurtherTicket = { sale: Sale } | { missing: Omit<ErrorDetail, 'field'> };

/**
 * The tickets as one recorded sale under the first one's header, or 422 with a detail per ticket that
 * cannot be invoiced now or cannot join the first one. Returns the sales in order.
 */
export function combinedSale(tickets: readonly [FurtherTicket, ...FurtherTicket[]], field: TicketField): { record: QrTransactionRecord; sales: [Sale, ...Sale[]] } {
  const now = new Date();
  const details: ErrorDetail[] = [];
  const found: { sale: Sale; index: number }[] = [];
  tickets.forEach((ticket, index) => {
    if ('missing' in ticket) return details.push({ field: field(index), ...ticket.missing });
    const problem = stateProblem(ticket.sale, now);
    if (problem) return details.push({ field: field(index), ...STATE_MESSAGES[problem] });
    found.push({ sale: ticket.sale, index });
  });
  const [first, ...rest] = found;
  if (first?.index === 0) {
    for (const m of ticketMismatches(found.map((f) => ({ record: f.sale.record, issuerId: f.sale.issuer.id })))) {
      details.push({ field: field(found[m.index]!.index), code: m.code, message: m.message });
    }
  }
  if (details.length > 0 || !first) throw ticketsNotCombinable(details);
  const sales: [Sale, ...Sale[]] = [first.sale, ...rest.map((f) => f.sale)];
  return { record: combineTickets([first.sale.record, ...rest.map((f) => f.sale.record)]), sales };
}
