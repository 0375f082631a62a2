import { AppError } from '../../shared/platform/errors.js';
import type { InboxMessage } from '../../shared/platform/job-inbox.js';
import { jobId, type RenderQrResult } from '../../shared/platform/jobs.js';
import { JobFailed, JobTimeout, type Producers } from '../../shared/platform/queues.js';
import type { RenderLaneJob } from '../../shared/platform/render-lane.js';
import type { ApiDeps } from '../deps.js';

/** QRs in one render job at most: ~0.3 ms of rendering each, and ~2 KB each in the job's result. */
const MAX_BATCH = 64;
/** Render jobs one API process has waiting at once; requests arriving meanwhile gather into the next. */
const MAX_IN_FLIGHT = 4;

interface Waiter {
  qrId: string;
  content: string;
  since: number;
  resolve(png: Buffer): void;
  reject(err: unknown): void;
}

/** The add itself failed (Redis unreachable): nothing was queued. */
class RenderNotQueued extends Error {}

/**
 * Gathers the QRs this process needs rendered into render jobs (issue #19): a job's round trips through
 * Redis (add, fetch, finish, reply) cost several times the render itself, so the requests
 * that arrive while earlier jobs are out share one. With none out, a request's job leaves at once (after
 * the current turn of the event loop, with whatever arrived in it): a lone request waits for nobody.
 */
class RenderBatcher {
  private pending: Waiter[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(
    private readonly producers: Producers,
    private readonly timeoutMs: number,
  ) {}

  render(qrId: string, content: string): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      this.pending.push({ qrId, content, since: Date.now(), resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= MAX_IN_FLIGHT || this.pending.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.send();
    });
  }

  private async send(): Promise<void> {
    // A request that waited its whole budget behind earlier jobs (a worker down) is answered now.
    const now = Date.now();
    const late = this.pending.filter((w) => now - w.since >= this.timeoutMs);
    for (const w of late) w.reject(new JobTimeout(`QR ${w.qrId} waited ${this.timeoutMs} ms for a render job`));
    this.pending = this.pending.filter((w) => now - w.since < this.timeoutMs);
    const batch = this.pending.splice(0, MAX_BATCH);
    if (batch.length === 0) return;
    this.inFlight++;
    this.schedule();
    try {
      const pngs = await this.renderBatch(batch);
      batch.forEach((w, i) => w.resolve(Buffer.from(pngs[i] ?? '', 'base64')));
    } catch (err) {
      for (const w of batch) w.reject(err);
    } finally {
      this.inFlight--;
      this.schedule();
    }
  }

  /**
   * One render lane job for the batch (issue #40: a list entry, not a BullMQ job), answered to this process's
   * inbox alone (issue #30). The wait starts before the push: a fast worker can reply before the push's own
   * answer arrives. No answer in time: JobTimeout (the job, if still waiting, is dropped by the worker at its deadline).
   */
  private async renderBatch(batch: Waiter[]): Promise<string[]> {
    const { inbox } = this.producers;
    const id = jobId.renderQr(batch[0]!.qrId);
    const job: RenderLaneJob = { id, replyTo: inbox.id, deadline: Date.now() + this.timeoutMs, qrs: batch.map((w) => ({ qrId: w.qrId, content: w.content })) };
    let stop = (): void => undefined;
    let timer: NodeJS.Timeout | undefined;
    const reply = new Promise<InboxMessage>((resolve, reject) => {
      stop = inbox.expect(id, resolve);
      timer = setTimeout(() => reject(new JobTimeout(`render job ${id} did not answer within ${this.timeoutMs} ms`)), this.timeoutMs);
    });
    try {
      try {
        await inbox.ready();
        await this.producers.pushRender(job);
      } catch (cause) {
        throw new RenderNotQueued('render job not queued', { cause });
      }
      const message = await reply;
      if ('failed' in message) throw new JobFailed(message.failed);
      const { pngs } = message.result as RenderQrResult;
      if (pngs.length !== batch.length) throw new JobFailed(`render job ${id} answered ${pngs.length} images for ${batch.length} QRs`);
      return pngs;
    } finally {
      clearTimeout(timer);
      stop();
      reply.catch(() => undefined);
    }
  }
}

// One batcher per API process's producers (tests build apps with producers of their own).
const batchers = new WeakMap<Producers, RenderBatcher>();

/**
 * Renders the QR PNG through the render queue and waits for it. Redis unreachable -> 503; no answer
 * within RENDER_TIMEOUT_MS -> 503 with Retry-After, also when the job failed without a reply (its reply lost
 * to Redis in every attempt, its worker dead: issue #38); the worker's reply that the encoder failed -> 500.
 * The caller has written nothing yet, so every failure leaves nothing behind and the same idempotency key
 * creates the sale on a retry.
 */
export async function renderQr(deps: ApiDeps, qrId: string, content: string): Promise<Buffer> {
  let batcher = batchers.get(deps.producers);
  if (!batcher) batchers.set(deps.producers, (batcher = new RenderBatcher(deps.producers, deps.config.renderTimeoutMs)));
  try {
    return await batcher.render(qrId, content);
  } catch (cause) {
    if (cause instanceof RenderNotQueued) {
      throw new AppError(503, 'service_unavailable', 'The job queue is unavailable; retry with the same idempotency-key.', {
        cause,
        expose: true,
        headers: { 'Retry-After': '1' },
      });
    }
    if (cause instanceof JobTimeout) {
      throw new AppError(503, 'qr_render_timeout', 'The QR image was not rendered in time; retry with the same idempotency-key.', {
        cause,
        expose: true,
        headers: { 'Retry-After': '1' },
      });
    }
    if (cause instanceof JobFailed) {
      throw new AppError(500, 'qr_render_failed', 'The QR image could not be rendered; retry with the same idempotency-key.', { cause, expose: true });
    }
    throw new AppError(503, 'service_unavailable', 'The job queue became unavailable; retry with the same idempotency-key.', {
      cause,
      expose: true,
      headers: { 'Retry-After': '1' },
    });
  }
}
