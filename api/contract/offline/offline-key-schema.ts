/** JSON Schemas of a store's offline keys (issue #33), used by ajv, the views and the OpenAPI document. */
import type { FromSchema } from 'json-schema-to-ts';

export const OFFLINE_KEY_LIMITS = { defaultWindowHours: 72, maxWindowHours: 720, defaultGraceHours: 24, maxGraceHours: 720 } as const;
/** A store's waiting claims are bounded by its keys' windows; one answer holds them. */
export const OFFLINE_CLAIM_LIST_MAX = 500;

export const createOfflineKeySchema = {
  $id: 'CreateOfflineKeyRequest',
  type: 'object',
  additionalProperties: false,
  properties: {
    windowHours: {
      type: 'integer',
      minimum: 1,
      maximum: OFFLINE_KEY_LIMITS.maxWindowHours,
      default: OFFLINE_KEY_LIMITS.defaultWindowHours,
      description: `How long after its moment of sale a ticket may catch up (and be invoiced); ${OFFLINE_KEY_LIMITS.defaultWindowHours} when not given`,
    },
    currency: {
      type: 'string',
      pattern: '^[A-Z]{3}$',
      default: 'MXN',
      description: "The currency of the tickets' totals, a code of SAT's c_Moneda (MXN when not given): a ticket carries none, and a sale catching one up must be in it",
    },
  },
} as const;

export const revokeOfflineKeySchema = {
  $id: 'RevokeOfflineKeyRequest',
  type: 'object',
  additionalProperties: false,
  properties: {
    graceHours: {
      type: 'integer',
      minimum: 0,
      maximum: OFFLINE_KEY_LIMITS.maxGraceHours,
      default: OFFLINE_KEY_LIMITS.defaultGraceHours,
      description: `How long tickets sold before the revocation may still catch up (0: none, e.g. a stolen key); ${OFFLINE_KEY_LIMITS.defaultGraceHours} when not given`,
    },
  },
} as const;

const dateTime = { type: 'string', format: 'date-time' } as const;
const keyProperties = {
  keyId: { type: 'string', description: 'The public id printed in every ticket the key signs (`k`)' },
  merchantId: { type: 'string' },
  status: { type: 'string', enum: ['ACTIVE', 'REVOKED'] },
  windowHours: { type: 'integer', description: 'How long after its moment of sale a ticket may catch up' },
  currency: { type: 'string', pattern: '^[A-Z]{3}$', description: "The currency of its tickets' totals (SAT's c_Moneda): a ticket carries none" },
  createdAt: dateTime,
  revokedAt: { anyOf: [{ type: 'null' }, dateTime], description: 'Tickets sold from this moment on are refused' },
  oldTicketsUntil: { anyOf: [{ type: 'null' }, dateTime], description: 'Tickets sold before the revocation are refused after this moment' },
  replacedBy: { anyOf: [{ type: 'null' }, { type: 'string' }], description: 'The key that replaced this one, when it was rotated' },
} as const;
const keyRequired = ['keyId', 'merchantId', 'status', 'windowHours', 'currency', 'createdAt', 'revokedAt', 'oldTicketsUntil', 'replacedBy'] as const;

export const offlineKeySchema = {
  $id: 'OfflineKey',
  type: 'object',
  additionalProperties: false,
  required: keyRequired,
  properties: keyProperties,
} as const;

export const offlineKeyCreatedSchema = {
  $id: 'OfflineKeyCreated',
  type: 'object',
  additionalProperties: false,
  required: [...keyRequired, 'offlineKey', 'linkBaseUrl'],
  properties: {
    ...keyProperties,
    offlineKey: { type: 'string', pattern: '^afok_[A-Za-z0-9_-]{10}\\.[A-Za-z0-9_-]{43}$', description: 'The key the point of sale signs with, shown only here' },
    linkBaseUrl: { type: 'string', description: "The start of every ticket's link (the buyer's page)" },
  },
} as const;

export const offlineKeyListSchema = {
  $id: 'OfflineKeyList',
  type: 'object',
  additionalProperties: false,
  required: ['content'],
  properties: { content: { type: 'array', items: offlineKeySchema, description: 'Newest first' } },
} as const;

export type CreateOfflineKeyRequest = FromSchema<typeof createOfflineKeySchema>;
export type RevokeOfflineKeyRequest = FromSchema<typeof revokeOfflineKeySchema>;
export type OfflineKey = FromSchema<typeof offlineKeySchema>;
export type OfflineKeyCreated = FromSchema<typeof offlineKeyCreatedSchema>;

/** A ticket a buyer scanned and left data on, as its store sees it: no buyer data, what to post and by when. */
export const offlineClaimSummarySchema = {
  $id: 'OfflineClaimSummary',
  type: 'object',
  additionalProperties: false,
  required: ['keyId', 'saleId', 'amount', 'soldAt', 'closesAt', 'status', 'refusal', 'claimedAt', 'invoiceId'],
  properties: {
    keyId: { type: 'string' },
    saleId: { type: 'string', description: 'The sale id printed in the ticket: post the sale with it' },
    amount: { type: 'string', description: 'The total signed in the ticket: the sale must have it' },
    soldAt: dateTime,
    closesAt: { ...dateTime, description: 'Post the sale before this moment, or the buyer is told it can no longer be invoiced' },
    status: { type: 'string', enum: ['WAITING', 'CONFIRMED', 'REFUSED'] },
    refusal: { anyOf: [{ type: 'null' }, { type: 'string', enum: ['window_passed', 'customer_invalid', 'sale_already_confirmed', 'sale_closed'] }] },
    claimedAt: { ...dateTime, description: 'When the buyer left their data' },
    invoiceId: { anyOf: [{ type: 'null' }, { type: 'string' }] },
  },
} as const;

export const offlineClaimListSchema = {
  $id: 'OfflineClaimList',
  type: 'object',
  additionalProperties: false,
  required: ['content'],
  properties: {
    content: {
      type: 'array',
      items: offlineClaimSummarySchema,
      maxItems: OFFLINE_CLAIM_LIST_MAX,
      description: `WAITING ones by closesAt (the most urgent first), the others newest first; at most ${OFFLINE_CLAIM_LIST_MAX}`,
    },
  },
} as const;

export type OfflineClaimSummary = FromSchema<typeof offlineClaimSummarySchema>;
