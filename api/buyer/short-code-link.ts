import { AppError } from '../../shared/platform/errors.js';
import { qrContent, signQrToken } from '../../shared/qr/qr-link.js';
import { parseShortCode } from '../../shared/domain/qr-code/short-code.js';
import { tokenForShortCode } from '../../shared/repositories/qr-transactions.js';
import type { ApiDeps } from '../deps.js';

/**
 * The QR link (qr_content) of the sale a typed short code names: 400 `invalid_short_code` when it cannot
 * be a code, 404 `short_code_not_found` when no sale has it. The state of the sale is the link's business.
 */
export async function qrLinkForShortCode(deps: ApiDeps, typed: unknown): Promise<string> {
  const code = parseShortCode(typed);
  if (!code) {
    throw new AppError(400, 'invalid_short_code', 'A ticket code has 10 letters and digits, like 7KQ4M-XR2PA.', {
      details: [{ field: 'code', code: 'invalid_format', message: 'Type the 10 characters printed under the QR.' }],
    });
  }
  const token = await tokenForShortCode(deps.db, code);
  if (!token) throw new AppError(404, 'short_code_not_found', 'No sale has this code; check it against the ticket.');
  return qrContent(deps.config.publicBaseUrl, signQrToken(token, deps.config.qrHmacKey));
}
