/**
 * The status page's "books" section (issue #32): a small GET form that picks a merchant and a month, and that
 * month of the merchant's books added up (shared/books/period-summary.ts) as tables: its sales and what became
 * of them, the CFDIs by type (cancelled apart), credit notes and payment complements against their invoices,
 * and every difference named. Every text from the data or the request is escaped.
 */
import type { MerchantSummary } from '../../shared/books/period-summary.js';
import { SALE_BUCKETS } from '../../shared/repositories/books-summary.js';
import type { StoreMatch } from '../../shared/repositories/merchants.js';

export interface BooksPanel {
  /** The store as the operator wrote it (absent: the form alone). */
  merchant?: string;
  /** YYYY-MM. */
  month: string;
  /** The summary read, or why there is none. */
  summary?: MerchantSummary;
  /** Several stores matched: the ones to pick from, and whether more matched. */
  choices?: StoreMatch[];
  more?: boolean;
  problem?: string;
}

function choiceList(panel: BooksPanel, action: string, escape: Escape): string {
  const items = (panel.choices ?? [])
    .map((s) => {
      const href = `${action}?${new URLSearchParams({ merchant: s.id, month: panel.month }).toString()}`;
      return `<li data-store="${escape(s.id)}"><a href="${escape(href)}">${escape(s.name)}</a> — store <code>${escape(s.external_merchant_id)}</code>, RFC ${escape(s.rfc)}, <code>${escape(s.id)}</code></li>`;
    })
    .join('');
  const more = panel.more ? '<p class="note">More stores match: write more of the name, or the store id.</p>' : '';
  return `<p class="note">Several stores match; pick one:</p><ul>${items}</ul>${more}`;
}

const SALE_LABELS: Record<(typeof SALE_BUCKETS)[number], string> = {
  recorded: 'recorded',
  invoiced: 'invoiced one by one',
  global_invoice: 'in a global invoice',
  expired_unclaimed: 'expired unclaimed',
  cancelled: 'cancelled',
  open: 'still open',
};

type Escape = (text: string) => string;

function tables(s: MerchantSummary, escape: Escape): string {
  const sales = s.sales
    .flatMap((c) =>
      SALE_BUCKETS.map((b) => `<tr data-sales="${b}"><td>${escape(SALE_LABELS[b])}</td><td>${escape(c.currency)}</td><td>${c[b].count}</td><td>${escape(c[b].total)}</td></tr>`),
    )
    .join('');
  const cfdis = s.cfdis
    .map(
      (c) =>
        `<tr data-cfdi="${c.cfdi_type}-${c.cancelled ? 'cancelled' : 'valid'}"><td>${c.cfdi_type}${c.cancelled ? ' cancelled' : ''}</td><td>${escape(c.currency)}</td><td>${c.count}</td><td>${escape(c.subtotal)}</td><td>${escape(c.discount)}</td><td>${escape(c.taxes.iva_transferred)}</td><td>${escape(c.taxes.ieps_transferred)}</td><td>${escape(c.taxes.isr_withheld)}</td><td>${escape(c.taxes.iva_withheld)}</td><td>${escape(c.total)}</td></tr>`,
    )
    .join('');
  const related = [...s.credit_notes.map((r) => ({ ...r, what: 'credit notes' })), ...s.payment_complements.map((r) => ({ ...r, what: 'payment complements' }))]
    .map(
      (r) =>
        `<tr><td>${escape(r.invoice_uuid ?? r.invoice_id)}</td><td>${escape(r.what)}</td><td>${r.documents}</td><td>${escape(r.amount)}</td><td>${escape(r.amount_all)}</td><td>${escape(r.invoice_total ?? '—')}</td></tr>`,
    )
    .join('');
  const differences =
    s.differences.length === 0
      ? '<p class="note" data-differences="0">Every figure adds up: no differences.</p>'
      : `<ul data-differences="${s.differences_total}">${s.differences.map((d) => `<li class="alert" data-code="${escape(d.code)}"><code>${escape(d.code)}</code> ${escape(d.message)}</li>`).join('')}</ul>`;
  return `<table><thead><tr><th scope="col">sales</th><th scope="col">currency</th><th scope="col">count</th><th scope="col">total</th></tr></thead><tbody>${sales}</tbody></table>
<table><thead><tr><th scope="col">CFDIs stamped</th><th scope="col">currency</th><th scope="col">count</th><th scope="col">subtotal</th><th scope="col">discount</th><th scope="col">IVA</th><th scope="col">IEPS</th><th scope="col">ISR withheld</th><th scope="col">IVA withheld</th><th scope="col">total</th></tr></thead><tbody>${cfdis}</tbody></table>
${related ? `<table><thead><tr><th scope="col">related invoice</th><th scope="col">by</th><th scope="col">this month</th><th scope="col">amount</th><th scope="col">all periods</th><th scope="col">invoice total</th></tr></thead><tbody>${related}</tbody></table>` : ''}
<h3>Differences (${s.differences_total})</h3>${differences}`;
}

export function booksSection(panel: BooksPanel, action: string, escape: Escape): string {
  const form = `<form method="get" action="${escape(action)}"><label>Store <input name="merchant" required maxlength="100" placeholder="name, store id, mer_… or RFC" value="${escape(panel.merchant ?? '')}"></label> <label>Month <input name="month" type="month" value="${escape(panel.month)}"></label> <button type="submit">Add up</button></form>`;
  const heading = panel.summary
    ? `<p class="note">${escape(panel.summary.merchant_name)} (<code>${escape(panel.summary.merchant_id)}</code>), issuer ${escape(panel.summary.issuer.rfc)}: ${escape(panel.month)}, on Mexico City's clocks.</p>`
    : '';
  const body = panel.problem
    ? `<p class="note alert">${escape(panel.problem)}</p>`
    : panel.summary
      ? tables(panel.summary, escape)
      : panel.choices
        ? choiceList(panel, action, escape)
        : '';
  return `<section aria-labelledby="books"><h2 id="books">A merchant's month</h2>${form}${heading}${body}</section>`;
}
