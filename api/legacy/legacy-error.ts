import { AppError } from '../../shared/platform/errors.js';

/** Current names that the earlier contract spelled differently (fields and headers). */
const EARLIER_NAMES: ReadonlyArray<readonly [current: string, earlier: string]> = [
  ['store_uid', 'store'],
  ['sat_payment_form', 'sat_payment_method'],
  ['idempotency-key', 'Idempotency-Key'],
];

function inEarlierTerms(text: string): string {
  return EARLIER_NAMES.reduce((out, [current, earlier]) => out.replaceAll(current, earlier), text);
}

/**
 * A refusal of the current creation path, told in the earlier contract's names: the caller sent `store`
 * and `sat_payment_method` and must find them in details[].field. Other errors pass unchanged.
 */
export function inLegacyTerms(err: unknown): unknown {
  if (!(err instanceof AppError) || !err.expose) return err;
  return new AppError(err.status, err.code, inEarlierTerms(err.message), {
    details: err.details.map((d) => ({ ...d, field: inEarlierTerms(d.field), message: inEarlierTerms(d.message) })),
    headers: err.headers,
    extra: err.extra,
    cause: err,
  });
}
