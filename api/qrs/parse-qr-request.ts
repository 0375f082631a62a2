import { AppError, type ErrorDetail } from '../../shared/platform/errors.js';
import { validator } from '../../shared/platform/validation/ajv.js';
import type { QrCreateDraft } from '../../shared/qr/qr-request.js';
import { QR_LIMITS, qrCreateRequestSchema } from '../contract/qrs/qr-request-schema.js';

const validateShape = validator(qrCreateRequestSchema);

/**
 * The 400-class checks of POST /v1/qrs: the JSON schema, then the rules a schema cannot say
 * (conditional exchange_rate, expiry window relative to now).
 */
export function parseQrCreateRequest(body: unknown, now: Date): QrCreateDraft {
  const request = validateShape(body);
  const details: ErrorDetail[] = [];
  if (request.currency !== 'MXN' && (request.exchange_rate === undefined || request.exchange_rate === null)) {
    details.push({ field: 'exchange_rate', code: 'required', message: `exchange_rate is required when currency is ${request.currency}.` });
  }
  const expiresAt = new Date(request.expires_at);
  if (expiresAt.getTime() <= now.getTime()) {
    details.push({ field: 'expires_at', code: 'in_the_past', message: 'expires_at must be in the future.' });
  } else if (expiresAt.getTime() - now.getTime() > QR_LIMITS.maxExpiryDays * 86_400_000) {
    details.push({ field: 'expires_at', code: 'too_far', message: `expires_at must be at most ${QR_LIMITS.maxExpiryDays} days ahead.` });
  }
  if (details.length > 0) throw new AppError(400, 'validation_failed', 'The request has invalid or missing fields.', { details });
  return request;
}
