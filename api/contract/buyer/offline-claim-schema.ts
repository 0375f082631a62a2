/** POST /v1/public/qrs/offline-claim (issue #33): the buyer's data left on an offline ticket before its sale arrived. */
import type { FromSchema } from 'json-schema-to-ts';
import { CFDI_TEXT } from '../../../shared/sat/cfdi-text-rules.js';
import { customerSchema } from './customer-schema.js';

const linkParam = (description: string) => ({ type: 'string', maxLength: 128, description }) as const;

export const offlineClaimRequestSchema = {
  $id: 'OfflineClaimRequest',
  type: 'object',
  additionalProperties: false,
  required: ['v', 'k', 'w', 'a', 's', 'm', 'customer'],
  properties: {
    v: { type: 'string', const: '2', description: 'Format version of an offline ticket' },
    k: linkParam("The offline key's id"),
    w: linkParam('The moment of sale (Unix seconds, base 36)'),
    a: linkParam('The signed total'),
    // The sale the store sends must have this sale_id, which the door refuses with a control character or "|".
    s: { ...linkParam('The POS\'s sale id (the sale\'s sale_id: no control characters, no "|")'), 'x-cfdi-text': CFDI_TEXT.saleId },
    m: linkParam('The signature'),
    customer: customerSchema,
    claim_token: {
      type: 'string',
      pattern: '^oct_[A-Za-z0-9_-]{32}$',
      description:
        'The `claim_token` an earlier answer gave: the first buyer to leave data on a ticket holds it, and corrects it with this token; without it a ticket already claimed is 409 `offline_claim_taken`',
    },
  },
} as const;

export const offlineClaimSchema = {
  $id: 'OfflineClaim',
  type: 'object',
  additionalProperties: false,
  required: ['status', 'store_name', 'sale_id', 'amount', 'sold_at', 'email', 'refusal', 'claim_token'],
  properties: {
    claim_token: {
      type: 'string',
      description: "The claim's holder token (a secret: the buyer's page keeps it in the browser). Send it with a correction; nobody else can replace this buyer's data",
    },
    status: {
      type: 'string',
      enum: ['WAITING', 'CONFIRMED', 'REFUSED'],
      description: 'WAITING for the store to send the sale; CONFIRMED: the invoice is being stamped and will be e-mailed; REFUSED: see `refusal`',
    },
    store_name: { type: 'string' },
    sale_id: { type: 'string' },
    amount: { type: 'string', description: 'The total signed in the ticket, which the sale must have' },
    sold_at: { type: 'string', format: 'date-time' },
    email: { type: 'string', description: 'Where the invoice (or why not) goes, masked' },
    refusal: { anyOf: [{ type: 'null' }, { type: 'string', enum: ['window_passed', 'customer_invalid', 'sale_already_confirmed', 'sale_closed'] }] },
  },
} as const;

export type OfflineClaimRequest = FromSchema<typeof offlineClaimRequestSchema>;
export type OfflineClaimView = FromSchema<typeof offlineClaimSchema>;
