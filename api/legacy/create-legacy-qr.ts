import type { ApiKeyPrincipal } from '../../shared/repositories/api-keys.js';
import { inLegacyTerms } from './legacy-error.js';
import { LEGACY_DEFAULTS, parseLegacyQrCreateRequest, toQrCreateRequest } from './to-qr-create-request.js';
import type { ApiDeps } from '../deps.js';
import { createQr, type CreateQrResult } from '../qrs/create-qr.js';

export interface CreateLegacyQrInput {
  body: unknown;
  idempotencyKey: string;
  /** Empty when the caller sent none (the earlier contract had no such header). */
  timeZone: string;
  /** As POST /v1/qrs's (CreateQrInput). */
  presentedKeyId: string;
  prefetched?: ReadonlyMap<string, string | null>;
}

/**
 * POST /api/v1/qrs: the earlier body checked by its own schema, mapped onto a POST /v1/qrs body and
 * created by the very same path (idempotency, SAT rules, render, write); refusals name the earlier fields.
 */
export async function createLegacyQr(deps: ApiDeps, principal: ApiKeyPrincipal, input: CreateLegacyQrInput): Promise<CreateQrResult> {
  const legacy = parseLegacyQrCreateRequest(input.body);
  const body = toQrCreateRequest(legacy, principal, input.idempotencyKey);
  try {
    return await createQr(deps, principal, {
      body,
      idempotencyKey: input.idempotencyKey,
      timeZone: input.timeZone || LEGACY_DEFAULTS.timeZone,
      presentedKeyId: input.presentedKeyId,
      ...(input.prefetched ? { prefetched: input.prefetched } : {}),
    });
  } catch (err) {
    throw inLegacyTerms(err);
  }
}
