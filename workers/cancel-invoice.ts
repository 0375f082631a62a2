/**
 * cancel-invoice: sends a recorded cancellation request to the PAC with the merchant's CSD, keeps SAT's
 * acknowledgement, then asks SAT where the CFDI stands: cancelled at once, or waiting for the receptor
 * (the poll follows it from there), or not yet known to SAT's status service (NOT_FOUND_AT_SAT, polled for a
 * grace). Timeouts and 5xx are thrown for BullMQ to retry; sending again is safe (SAT answers 202 for a CFDI
 * already cancelled, and keeps one request in process). A refusal ends the request as FAILED, keeping SW's
 * messageDetail (the cause), and the invoice is ACTIVE again.
 */
import type { Job } from 'bullmq';
import { UnrecoverableError } from 'bullmq';
import { stampedFacts } from '../shared/cancellation/stamped-facts.js';
import type { Keyring } from '../shared/platform/crypto/encrypt-at-rest.js';
import type { Db } from '../shared/platform/db.js';
import type { CancelInvoiceResult, CancelInvoicePayload } from '../shared/platform/jobs.js';
import { leadingCode, PacRefused, type PacClient, type SatCfdiStatus, type SatStatusQuery } from '../shared/adapters/pac/pac-client.js';
import { followCancellation, type CancellationBounds } from '../shared/domain/cancellation-lifecycle.js';
import { findCancellation, moveCancellation, type CancellationRefusal } from '../shared/repositories/invoice-cancellations.js';
import type { Producers } from '../shared/platform/queues.js';
import { enqueueCancellationEmail } from './email-cancellation.js';
import { findInvoice, type InvoiceRow } from '../shared/repositories/invoices.js';
import { loadCsdMaterial } from '../shared/repositories/merchant-csds.js';
import type { FileStore } from '../shared/platform/storage/file-store.js';

export interface CancelDeps {
  db: Db;
  pac: PacClient;
  files: FileStore;
  keyring: Keyring;
  /** To tell the buyer once their invoice is cancelled (workers/email-cancellation.ts). */
  producers: Producers;
  /** How long a request may wait for SAT's status service to find it, or for the receptor (config). */
  bounds: CancellationBounds;
}

/** The facts SAT's status service is asked with, from the stamped XML. */
export async function statusQueryOf(files: FileStore, invoice: InvoiceRow): Promise<SatStatusQuery> {
  const file = invoice.xml_file_key ? await files.get(invoice.xml_file_key) : undefined;
  if (!file || !invoice.uuid) throw new UnrecoverableError(`invoice ${invoice.id} has no stamped XML`);
  const facts = stampedFacts(file.data.toString('utf8'));
  return { uuid: invoice.uuid, issuerRfc: facts.issuerRfc, receptorRfc: facts.receptorRfc, total: facts.total, seal: facts.seal };
}

/** What the merchant is told of a PAC's refusal: SW's code and message, and the cause SW puts in messageDetail. */
export function refusalOf(err: PacRefused): CancellationRefusal {
  return { code: err.pacCode, message: err.message, detail: err.detail ?? null, detail_code: err.detail ? (leadingCode(err.detail) ?? null) : null, source: 'pac' };
}

/** SAT's answer when the PAC says it had cancelled the CFDI already (202): no need to ask. */
const ALREADY_CANCELLED: SatCfdiStatus = { query: 'found', code: '', state: 'Cancelado', cancellable: '', cancellationStatus: '' };

export async function cancelInvoiceJob(deps: CancelDeps, job: Job<CancelInvoicePayload>): Promise<CancelInvoiceResult> {
  const cancellation = await findCancellation(deps.db, job.data.cancellationId);
  if (!cancellation) throw new UnrecoverableError(`cancellation ${job.data.cancellationId} does not exist`);
  if (cancellation.status !== 'REQUESTED') return { outcome: 'not-requested' };
  const invoice = await findInvoice(deps.db, cancellation.invoice_id);
  if (!invoice) throw new UnrecoverableError(`invoice ${cancellation.invoice_id} does not exist`);
  const query = await statusQueryOf(deps.files, invoice);
  const csd = await loadCsdMaterial(deps.db, invoice.merchant_id, deps.keyring);
  if (!csd) throw new UnrecoverableError(`merchant ${invoice.merchant_id} has no CSD`);

  let answer;
  try {
    answer = await deps.pac.cancel({
      uuid: query.uuid,
      issuerRfc: query.issuerRfc,
      motive: cancellation.motive,
      substitutionUuid: cancellation.substitution_uuid ?? undefined,
      certificateDer: csd.certificateDer,
      privateKeyDer: csd.privateKeyDer,
      password: csd.password,
    });
  } catch (err) {
    if (!(err instanceof PacRefused)) throw err;
    const refusal = refusalOf(err);
    await moveCancellation(deps.db, cancellation.id, ['REQUESTED'], 'FAILED', { refusal });
    return { outcome: 'refused', uuid: query.uuid, qrId: invoice.transaction_id, code: refusal.detail_code ?? refusal.code };
  }
  const acuseFileKey = await deps.files.put('acuses', { contentType: 'application/xml', data: Buffer.from(answer.acuse, 'utf8') }, 'xml');
  // 202: SAT had cancelled it already (an earlier attempt whose answer was lost).
  const status = answer.satCode === '202' ? ALREADY_CANCELLED : await deps.pac.status(query);
  const now = new Date();
  const step = followCancellation({ status: 'REQUESTED', since: cancellation.status_since }, status, now, deps.bounds);
  const moved = await moveCancellation(deps.db, cancellation.id, ['REQUESTED'], step.to, {
    satCode: answer.satCode,
    satStatus: status.cancellationStatus,
    acuseFileKey,
    attentionCause: step.cause,
    now,
  });
  if (moved && step.to === 'CANCELLED') await enqueueCancellationEmail(deps.producers, invoice.id);
  const outcome = step.to === 'CANCELLED' ? 'cancelled' : step.to === 'NOT_FOUND_AT_SAT' ? 'not-found' : step.to === 'NEEDS_ATTENTION' ? 'needs-attention' : 'pending';
  return { outcome, uuid: query.uuid, qrId: invoice.transaction_id };
}
