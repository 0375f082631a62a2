import type { Job } from 'bullmq';
import { buildInvoiceZip, recordZipFailure, sweepInvoiceExports, type ZipBuildDeps } from '../shared/books/invoice-zip.js';
import { BUILD_EXPORT_ATTEMPTS, jobId, type BuildInvoiceExportResult, type InvoiceExportPayload } from '../shared/platform/jobs.js';
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
 * sweep-invoice-exports (hourly): removes the exports past their keeping time with their files, and looks at
 * every export still PENDING or RUNNING by its job (the job id is the export's): one whose job Redis lost is
 * queued again, so it is built within the hour; one whose job failed or ended without recording its outcome
 * (a worker killed mid-build until BullMQ gave the job up as stalled: the handler never saw its last attempt)
 * is recorded FAILED, which needs attention (issue #38), rather than left RUNNING forever behind a failed job
 * whose id blocks a new one.
 */
export async function sweepInvoiceExportsJob(deps: ZipBuildDeps, producers: Producers): Promise<{ removed: number; failed: number }> {
  const removed = await sweepInvoiceExports(deps);
  let failed = 0;
  for (const exportId of await unfinishedInvoiceExportIds(deps.db, 1000)) {
    const job = await producers.queueOf('build-invoice-export', { exportId }).getJob(jobId.buildInvoiceExport(exportId));
    const state = job ? await job.getState() : 'unknown';
    if (state === 'unknown') await producers.add('build-invoice-export', { exportId });
    else if (state === 'failed' || state === 'completed') {
      await recordZipFailure(deps.db, exportId, new Error(`its job ${state === 'failed' ? `failed: ${job?.failedReason ?? 'no reason'}` : 'ended without a result'}`));
      failed++;
    }
  }
  return { removed, failed };
}
