import type { Job } from 'bullmq';
import { buildInvoiceZip, recordZipFailure, sweepInvoiceExports, type ZipBuildDeps } from '../shared/books/invoice-zip.js';
import { BUILD_EXPORT_ATTEMPTS, type BuildInvoiceExportResult, type InvoiceExportPayload } from '../shared/platform/jobs.js';
import type { Producers } from '../shared/platform/queues.js';
import { unfinishedInvoiceExportIds } from '../shared/repositories/invoice-exports.js';

/** build-invoice-export (issue #32): the export's ZIP (shared/books/invoice-zip.ts); FAILED after the last attempt. */
export async function buildInvoiceExportJob(deps: ZipBuildDeps, job: Job<InvoiceExportPayload>): Promise<BuildInvoiceExportResult> {
  try {
    return await buildInvoiceZip(deps, job.data.exportId);
  } catch (err) {
    if (job.attemptsMade + 1 >= (job.opts.attempts ?? BUILD_EXPORT_ATTEMPTS)) await recordZipFailure(deps.db, job.data.exportId, err);
    throw err;
  }
}

/**
 * sweep-invoice-exports (hourly): removes the exports past their keeping time with their files, and queues again
 * every export still PENDING or RUNNING (a no-op for one whose job waits, runs or retries: the job id is the
 * export's), so one whose job Redis lost is built within the hour.
 */
export async function sweepInvoiceExportsJob(deps: ZipBuildDeps, producers: Producers): Promise<{ removed: number }> {
  const removed = await sweepInvoiceExports(deps);
  for (const exportId of await unfinishedInvoiceExportIds(deps.db, 1000)) await producers.add('build-invoice-export', { exportId });
  return { removed };
}
