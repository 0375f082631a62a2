import type { FromSchema } from 'json-schema-to-ts';
import { invoiceFileUrl } from '../../../shared/invoices/invoice-links.js';
import { toJsonNumber } from '../../../shared/domain/money.js';
import type { InvoiceRow } from '../../../shared/repositories/invoices.js';
import type { creditNoteSchema } from './credit-note-schema.js';

// Typed from the schema the OpenAPI document publishes: the compiler holds the view to it.
export type CreditNote = FromSchema<typeof creditNoteSchema>;

/** CreditNote: what it credits and, once stamped, its UUID and the buyer's links to its files. */
export function creditNoteView(creditNote: InvoiceRow, related: { uuid: string; amount: string }[], ctx: { publicBaseUrl: string; urlSigningKey: string }): CreditNote {
  const uuid = creditNote.uuid;
  return {
    id: creditNote.id,
    type: 'E' as const,
    status: creditNote.status,
    uuid,
    series: creditNote.series,
    folio: creditNote.folio,
    related: related.map((r) => ({ uuid: r.uuid, amount: toJsonNumber(r.amount) })),
    total: creditNote.total === null ? null : toJsonNumber(creditNote.total),
    issued_at: creditNote.stamped_at?.toISOString() ?? null,
    error: creditNote.status === 'REFUSED' ? creditNote.refusal : null,
    xml_url: uuid ? invoiceFileUrl(ctx.publicBaseUrl, uuid, 'xml', ctx.urlSigningKey) : null,
    pdf_url: uuid ? invoiceFileUrl(ctx.publicBaseUrl, uuid, 'pdf', ctx.urlSigningKey) : null,
  };
}
