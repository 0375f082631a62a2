/**
 * email-offline-claim: the buyer of a refused offline claim told why (shared/adapters/email/offline-claim-mail.ts).
 * Whoever holds an offline key can leave claims for any address, so an address gets at most
 * OFFLINE_CLAIM_EMAILS_PER_ADDRESS_PER_DAY of these a day (issue #39); the rest are `limited`, not sent.
 */
import { UnrecoverableError, type Job } from 'bullmq';
import { formatAmount } from '../shared/domain/money.js';
import { CLAIM_REFUSAL_TEXT } from '../shared/offline/claim-refusal.js';
import { offlineClaimMail } from '../shared/adapters/email/offline-claim-mail.js';
import { MailRejected } from '../shared/adapters/email/invoice-mailer.js';
import type { OfflineClaimPayload } from '../shared/platform/jobs.js';
import { claimMerchant, findClaim, refusedClaimsToAddressBefore } from '../shared/repositories/offline-claims.js';
import type { EmailDeps } from './email-invoice.js';

const DAY_MS = 86_400_000;

export async function emailOfflineClaimJob(
  deps: Pick<EmailDeps, 'db' | 'mailer'> & { perAddressPerDay: number },
  job: Job<OfflineClaimPayload>,
  now = new Date(),
): Promise<{ outcome: 'sent' | 'limited' }> {
  const claim = await findClaim(deps.db, job.data.keyId, job.data.saleId);
  if (!claim || claim.status !== 'REFUSED' || !claim.refusal) throw new UnrecoverableError(`offline claim ${job.data.keyId}/${job.data.saleId} is not refused`);
  if ((await refusedClaimsToAddressBefore(deps.db, claim, new Date(now.getTime() - DAY_MS))) >= deps.perAddressPerDay) return { outcome: 'limited' };
  const merchant = await claimMerchant(deps.db, claim.merchant_id);
  if (!merchant) throw new UnrecoverableError(`offline claim ${job.data.keyId}/${job.data.saleId}: merchant missing`);
  const mail = offlineClaimMail({
    to: claim.customer.email,
    storeName: merchant.name,
    saleId: claim.sale_id,
    amount: formatAmount(claim.amount),
    reason: CLAIM_REFUSAL_TEXT[claim.refusal],
    ...(merchant.contactEmail ? { supportEmail: merchant.contactEmail } : {}),
  });
  try {
    await deps.mailer.send(mail);
  } catch (err) {
    if (err instanceof MailRejected) throw new UnrecoverableError(`the mail server refused the recipient of offline claim ${job.data.keyId}/${job.data.saleId}`);
    throw err;
  }
  return { outcome: 'sent' };
}
