import { AppError } from '../../shared/platform/errors.js';
import { qrContent, signQrToken } from '../../shared/qr/qr-link.js';
import { parseShortCode } from '../../shared/domain/qr-code/short-code.js';
import { tokenForShortCode } from '../../shared/repositories/qr-transactions.js';
import { OFFLINE_SHORT_CODE_LENGTH } from '../../shared/offline/offline-ticket.js';
import type { ApiDeps } from '../deps.js';

/**
 * The QR link (qr_content) of the sale a typed short code names: 400 `invalid_short_code` when it cannot
 * be a code, 404 `short_code_not_found` when no sale has it (`offline_code_not_arrived` for a 12-symbol code
 * of a ticket printed offline whose sale has not arrived: it may yet). The state of the sale is the link's business.
 */
export async function qrLinkForShortCode(deps: ApiDeps, typed: unknown): Promise<string> {
  const code = parseShortCode(typed);
  if (!code) {
    throw new AppError(400, 'invalid_short_code', 'A ticket code has 10 letters and digits, like 7KQ4M-XR2PA (12, like 7KQ4-MXR2-PAB3, on a ticket printed offline).', {
      details: [{ field: 'code', code: 'invalid_format', message: 'Type the 10 or 12 characters printed under the QR.' }],
    });
  }
  const token = await tokenForShortCode(deps.db, code);
  if (!token) {
    // An offline ticket's code is known only once its store sends the sale: say so rather than "no such code".
    if (code.length === OFFLINE_SHORT_CODE_LENGTH) {
      throw new AppError(
        404,
        'offline_code_not_arrived',
        'No sale has this code yet: a 12-character code is printed offline, and its sale appears once the store sends it. Scan the QR to leave your data.',
      );
    }
    throw new AppError(404, 'short_code_not_found', 'No sale has this code; check it against the ticket.');
  }
  return qrContent(deps.config.publicBaseUrl, signQrToken(token, deps.config.qrHmacKey));
}
