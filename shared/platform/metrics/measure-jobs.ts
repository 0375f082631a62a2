import type { Job, Worker } from 'bullmq';
import { QUEUES, type QueueName } from '../jobs.js';
import { jobDuration } from './registry.js';

function secondsRunning(job: Job): number {
  return job.processedOn ? Math.max(0, (job.finishedOn ?? Date.now()) - job.processedOn) / 1000 : 0;
}

/** Records every attempt a worker finishes in autofactura_job_duration_seconds, by job name and outcome. */
export function measureJobs(worker: Worker, queue: QueueName): void {
  worker.on('completed', (job) => {
    jobDuration.observe({ queue, job_name: job.name, outcome: 'completed' }, secondsRunning(job));
  });
  worker.on('failed', (job) => {
    if (!job) return; // a job BullMQ could no longer read: nothing to label it with
    // BullMQ sets finishedOn only when the job failed for good; an attempt that will be retried has none.
    jobDuration.observe({ queue, job_name: job.name, outcome: job.finishedOn ? 'failed' : 'retrying' }, secondsRunning(job));
  });
}

/**
 * Records one render lane job (issue #40: not a BullMQ job) in autofactura_job_duration_seconds, as a render job
 * was: queue `render`, job `render-qr`, so the render's dashboards and alerts read on.
 */
export async function measureRenderLaneJob<T>(run: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const labels = { queue: QUEUES.render, job_name: 'render-qr' };
  try {
    const result = await run();
    jobDuration.observe({ ...labels, outcome: 'completed' }, (performance.now() - started) / 1000);
    return result;
  } catch (err) {
    jobDuration.observe({ ...labels, outcome: 'failed' }, (performance.now() - started) / 1000);
    throw err;
  }
}
