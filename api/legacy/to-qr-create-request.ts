import { AppError } from '../../shared/platform/errors.js';
import type { QrCreateDraft } from '../../shared/qr/qr-request.js';
import type { ApiKeyPrincipal } from '../../shared/repositories/api-keys.js';
import { validator } from '../../shared/platform/validation/ajv.js';
import { legacyQrCreateRequestSchema, type LegacyQrCreateRequest } from '../contract/legacy/legacy-qr-schema.js';

/**
 * What the current contract requires and the earlier one never sent (docs/api.md, "The earlier contract").
 * The time zone applies only when the caller sends no X-TIME-ZONE.
 */
export const LEGACY_DEFAULTS = { typeOfReceipt: 'I', exportCode: '01', timeZone: 'America/Mexico_City' } as const;

/** The 400 checks of the earlier body, with its own field names in details[]. */
export const parseLegacyQrCreateRequest = validator(legacyQrCreateRequestSchema);

/** Derived from the idempotency key so that a retry maps onto the same sale (and the same fingerprint). */
export function legacySaleId(idempotencyKey: string): string {
  return `legacy-${idempotencyKey.toLowerCase()}`;
}

/**
 * The earlier body as a POST /v1/qrs body for the API key's merchant. `store` may be the point of sale's
 * name, which becomes its store_uid; any other value goes through as store_uid, so the current route
 * decides (its merchantId is accepted, anything else is 404 store_not_found).
 */
export function toQrCreateRequest(
  legacy: LegacyQrCreateRequest,
  merchant: Pick<ApiKeyPrincipal, 'externalMerchantId' | 'merchantName' | 'issuerRfc'>,
  idempotencyKey: string,
): QrCreateDraft {
  if (legacy.issuer_rfc.trim().toUpperCase() !== merchant.issuerRfc) {
    throw new AppError(422, 'issuer_mismatch', `issuer_rfc "${legacy.issuer_rfc}" is not the RFC of this API key's issuer.`, {
      details: [{ field: 'issuer_rfc', code: 'issuer_mismatch', message: "issuer_rfc must be the RFC of the issuer the API key's store invoices for." }],
    });
  }
  const store = legacy.store.trim().toLowerCase();
  const namesThisStore = store === merchant.merchantName.trim().toLowerCase() || store === merchant.externalMerchantId.toLowerCase();
  return {
    store_uid: namesThisStore ? merchant.externalMerchantId : legacy.store,
    sale_id: legacySaleId(idempotencyKey),
    operation: legacy.operation,
    amount: legacy.amount,
    subtotal: legacy.subtotal,
    currency: legacy.currency,
    // The earlier contract had no payment method: a known form means paid at the sale (PUE); form 99
    // "Por definir" is only valid with PPD, which SAT requires for it.
    sat_payment_method: legacy.sat_payment_method === '99' ? 'PPD' : 'PUE',
    sat_payment_form: legacy.sat_payment_method,
    expires_at: legacy.expires_at,
    type_of_receipt: LEGACY_DEFAULTS.typeOfReceipt,
    export_code: LEGACY_DEFAULTS.exportCode,
    operation_data: legacy.operation_data,
  };
}
