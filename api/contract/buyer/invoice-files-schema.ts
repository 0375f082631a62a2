/** POST /v1/public/qrs/invoice-files: the invoice's files for whoever proves the buyer's RFC. */
import type { FromSchema } from 'json-schema-to-ts';

export const invoiceFilesRequestSchema = {
  $id: 'BuyerInvoiceFilesRequest',
  type: 'object',
  additionalProperties: false,
  required: ['v', 't', 'm', 'rfc'],
  properties: {
    v: { type: 'string', maxLength: 4 },
    t: { type: 'string', maxLength: 64 },
    m: { type: 'string', maxLength: 64 },
    rfc: { type: 'string', minLength: 1, maxLength: 20, description: "The buyer's RFC as on the invoice (a generic RFC is never accepted)" },
  },
} as const;

export type InvoiceFilesRequest = FromSchema<typeof invoiceFilesRequestSchema>;

export const buyerInvoiceFilesSchema = {
  $id: 'BuyerInvoiceFiles',
  type: 'object',
  required: ['uuid', 'issued_at', 'xml_url', 'pdf_url', 'links_expire_at'],
  properties: {
    uuid: { type: 'string', description: 'Fiscal folio (CFDI UUID)' },
    issued_at: { type: 'string', format: 'date-time' },
    xml_url: { type: 'string', description: 'Signed link to the XML, valid for one hour' },
    pdf_url: { type: 'string', description: 'Signed link to the PDF, valid for one hour' },
    links_expire_at: { type: 'string', format: 'date-time', description: 'When both links stop working (410 `link_expired`); ask again for new ones' },
  },
} as const;
