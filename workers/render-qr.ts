import type { Job } from 'bullmq';
import type { RenderQrJobResult, RenderQrPayload } from '../shared/platform/jobs.js';
import type { Producers } from '../shared/platform/queues.js';
import { renderQrPng } from '../shared/domain/qr-code/render-qr-png.js';

/** Each deep link of the batch as a base64 1-bit PNG. */
export function renderQrPngs(data: RenderQrPayload): string[] {
  return data.qrs.map((qr) => renderQrPng(qr.content).toString('base64'));
}

/**
 * render-qr: the batch's PNGs, delivered to the inbox of the API process that waits for them (issue #30),
 * a failure too, so its requests answer at once instead of at their timeout; the job fails as well (the
 * dashboard shows it). The job's own result is a count, so its completion event carries no images. A job
 * without `replyTo` (from an older API process) answers in its result, as before.
 */
export async function renderQrJob(
  producers: Pick<Producers, 'reply'>,
  job: Pick<Job<RenderQrPayload>, 'id' | 'data'>,
  render: (data: RenderQrPayload) => string[] = renderQrPngs,
): Promise<RenderQrJobResult> {
  const { replyTo } = job.data;
  if (replyTo === undefined) return { pngs: render(job.data) };
  const jobId = job.id ?? '';
  let pngs: string[];
  try {
    pngs = render(job.data);
  } catch (err) {
    await producers.reply(replyTo, { jobId, failed: err instanceof Error ? err.message : String(err) }).catch(() => undefined);
    throw err;
  }
  await producers.reply(replyTo, { jobId, result: { pngs } });
  return { replied: pngs.length };
}
