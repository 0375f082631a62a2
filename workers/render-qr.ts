import { UnrecoverableError, type Job } from 'bullmq';
import type { RenderQrJobResult, RenderQrPayload } from '../shared/platform/jobs.js';
import type { Producers } from '../shared/platform/queues.js';
import { deliverRenderReply, type RenderLaneJob } from '../shared/platform/render-lane.js';
import { renderQrPng } from '../shared/domain/qr-code/render-qr-png.js';

/** Each deep link of the batch as a base64 1-bit PNG. */
export function renderQrPngs(data: RenderQrPayload): string[] {
  return data.qrs.map((qr) => renderQrPng(qr.content).toString('base64'));
}

/**
 * A render lane job (issue #40, shared/platform/render-lane.ts): the batch's PNGs to the inbox of the API
 * process that waits. The encoder threw: the failure goes to the inbox at once (its requests answer 500
 * `qr_render_failed`), best effort. The reply did not reach Redis (a failover): sent again, not rendered again
 * (deliverRenderReply); when every try fails the requests answer 503 at their timeout and the POS retries.
 */
export async function renderLaneJob(producers: Pick<Producers, 'reply'>, job: RenderLaneJob, render: (data: RenderQrPayload) => string[] = renderQrPngs): Promise<number> {
  let pngs: string[];
  try {
    pngs = render(job);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    await producers.reply(job.replyTo, { jobId: job.id, failed: reason }).catch(() => undefined);
    throw Object.assign(new Error(`render lane job ${job.id}: ${reason}`), { cause: err });
  }
  await deliverRenderReply(() => producers.reply(job.replyTo, { jobId: job.id, result: { pngs } }), job.deadline);
  return pngs.length;
}

/**
 * render-qr, the BullMQ job that API processes from before issue #40 still add (a rolling deploy): the batch's PNGs, delivered to the inbox of the API process that waits for them (issue #30).
 * The job's own result is a count, so its completion event carries no images. A job without `replyTo` (from
 * an older API process) answers in its result, as before.
 *
 * Two failures, told apart by the step that failed (issue #38), not by an error's text:
 * - the encoder threw: the same content fails the same way again, so the failure goes to the inbox at once
 *   (its requests answer 500 `qr_render_failed` now, not at their timeout) and the job fails for good;
 * - the reply did not reach Redis (a failover, a broken connection): the images are lost, not wrong, so the
 *   attempt fails and BullMQ runs the job again after a short backoff (JOBS['render-qr']), rendering anew.
 */
export async function renderQrJob(
  producers: Pick<Producers, 'reply'>,
  job: Pick<Job<RenderQrPayload>, 'id' | 'data'>,
  render: (data: RenderQrPayload) => string[] = renderQrPngs,
): Promise<RenderQrJobResult> {
  const { replyTo } = job.data;
  const jobId = job.id ?? '';
  let pngs: string[];
  try {
    pngs = render(job.data);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    if (replyTo !== undefined) await producers.reply(replyTo, { jobId, failed: reason }).catch(() => undefined);
    // Unrecoverable: BullMQ fails the job now whatever its attempts; the encoder's own error (its stack) goes with it to the log line.
    throw Object.assign(new UnrecoverableError(reason), { cause: err });
  }
  if (replyTo === undefined) return { pngs };
  await producers.reply(replyTo, { jobId, result: { pngs } });
  return { replied: pngs.length };
}
