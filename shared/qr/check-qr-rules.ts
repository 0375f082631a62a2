/** Every SAT rule on a POST /v1/qrs body that answers 422 `rule_violation`: catalogs, then arithmetic. */
import type { ErrorDetail } from '../platform/errors.js';
import { checkQrAmounts } from './check-qr-amounts.js';
import { checkQrCatalogs, type RuleContext } from './check-qr-catalogs.js';
import type { QrCreateRequest } from './qr-request.js';

export type { RuleContext } from './check-qr-catalogs.js';

export function checkQrRules(request: QrCreateRequest, ctx: RuleContext): ErrorDetail[] {
  return [...checkQrCatalogs(request, ctx), ...checkQrAmounts(request, ctx)];
}
