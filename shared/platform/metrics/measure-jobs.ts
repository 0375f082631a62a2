import type { Job, Worker } from 'bullmq';
import type { QueueName } from '../jobs.js';
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
