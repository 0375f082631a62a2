import { AppError } from '../../shared/errors.js';
import { QUEUES, type RenderQrResult } from '../../shared/jobs.js';
import { awaitJobResult, JobFailed, JobTimeout } from '../../shared/queues.js';
import type { ApiDeps } from '../deps.js';

/**
 * Renders the QR PNG on the render queue and waits for it. Redis unreachable -> 503; no answer
 * within RENDER_TIMEOUT_MS -> 503 with Retry-After; a failed render -> 500. The caller has
 * written nothing yet, so every failure leaves nothing behind.
 */
export async function renderQr(deps: ApiDeps, qrId: string, content: string): Promise<Buffer> {
  let job;
  try {
    job = await deps.producers.add('render-qr', { qrId, content }, { attempts: 1, removeOnComplete: { count: 1000 }, removeOnFail: { count: 1000 } });
  } catch (cause) {
    throw new AppError(503, 'service_unavailable', 'The job queue is unavailable; retry with the same idempotency-key.', { cause, expose: true, headers: { 'Retry-After': '1' } });
  }
  let result: RenderQrResult;
  try {
    result = await awaitJobResult<RenderQrResult>(deps.producers.renderEvents, deps.producers.queue(QUEUES.render), job, deps.config.renderTimeoutMs);
  } catch (cause) {
    if (cause instanceof JobTimeout) {
      await job.remove().catch(() => undefined);
      throw new AppError(503, 'qr_render_timeout', 'The QR image was not rendered in time; retry with the same idempotency-key.', { cause, expose: true, headers: { 'Retry-After': '1' } });
    }
    if (cause instanceof JobFailed) {
      throw new AppError(500, 'qr_render_failed', 'The QR image could not be rendered; retry with the same idempotency-key.', { cause, expose: true });
    }
    throw new AppError(503, 'service_unavailable', 'The job queue became unavailable; retry with the same idempotency-key.', { cause, expose: true, headers: { 'Retry-After': '1' } });
  }
  return Buffer.from(result.png, 'base64');
}
