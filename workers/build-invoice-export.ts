import type { Job } from 'bullmq';
import { buildInvoiceZip, recordZipFailure, type ZipBuildDeps } from '../shared/books/invoice-zip.js';
import { BUILD_EXPORT_ATTEMPTS, type BuildInvoiceExportResult, type InvoiceExportPayload } from '../shared/platform/jobs.js';

/** build-invoice-export (issue #32): the export's ZIP (shared/books/invoice-zip.ts); FAILED after the last attempt. */
export async function buildInvoiceExportJob(deps: ZipBuildDeps, job: Job<InvoiceExportPayload>): Promise<BuildInvoiceExportResult> {
  try {
    return await buildInvoiceZip(deps, job.data.exportId);
  } catch (err) {
    if (job.attemptsMade + 1 >= (job.opts.attempts ?? BUILD_EXPORT_ATTEMPTS)) await recordZipFailure(deps.db, job.data.exportId, err);
    throw err;
  }
}
