import type { QueueEvents } from 'bullmq';
import type { JobName, JobTypes } from '../../shared/platform/jobs.js';
import { harness } from './harness.js';

/**
 * Adds a job (a sweep's run, usually) and resolves with its result, read from the completion event it
 * waits for from before the add: such jobs are removed as they complete, and Job.waitUntilFinished then
 * fails with "Missing key for job" when the run is over before it looks. `events` must be the QueueEvents
 * of the job's queue, ready.
 */
export function runJob<N extends JobName>(name: N, data: JobTypes[N]['data'], events: QueueEvents, timeoutMs = 30_000): Promise<JobTypes[N]['result']> {
  return new Promise((resolve, reject) => {
    let id: string | undefined;
    const early: { jobId: string; returnvalue?: unknown; failedReason?: string }[] = [];
    const settle = (e: { jobId: string; returnvalue?: unknown; failedReason?: string }) => {
      if (id === undefined) {
        early.push(e);
        return;
      }
      if (e.jobId !== id) return;
      done();
      if (e.failedReason !== undefined) reject(new Error(`job ${name} failed: ${e.failedReason}`));
      else resolve((typeof e.returnvalue === 'string' ? JSON.parse(e.returnvalue) : e.returnvalue) as JobTypes[N]['result']);
    };
    const onCompleted = (e: { jobId: string; returnvalue: unknown }) => settle(e);
    const onFailed = (e: { jobId: string; failedReason: string }) => settle(e);
    const timer = setTimeout(() => {
      done();
      reject(new Error(`job ${name} did not finish within ${timeoutMs} ms`));
    }, timeoutMs);
    const done = () => {
      clearTimeout(timer);
      events.off('completed', onCompleted);
      events.off('failed', onFailed);
    };
    events.on('completed', onCompleted);
    events.on('failed', onFailed);
    harness()
      .producers.add(name, data, { removeOnComplete: true })
      .then((job) => {
        id = job.id;
        for (const e of early.splice(0)) settle(e);
      })
      .catch((err: unknown) => {
        done();
        reject(err as Error);
      });
  });
}
