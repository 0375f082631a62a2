import { QUEUE_STATES, readQueueDepths } from '../queue-depths.js';
import type { Producers } from '../queues.js';
import { queueJobs, queueOldestWaitingAge } from './registry.js';

/** Sets the queue gauges from Redis. On failure the gauges are emptied rather than left stale, and the error is passed on. */
export async function recordQueueDepths(producers: Producers, now: number = Date.now()): Promise<void> {
  try {
    for (const { queue, counts, scheduled, oldestWaitingSeconds } of await readQueueDepths(producers, now)) {
      for (const state of QUEUE_STATES) queueJobs.set({ queue, state }, counts[state]);
      queueJobs.set({ queue, state: 'scheduled' }, scheduled);
      queueOldestWaitingAge.set({ queue }, oldestWaitingSeconds);
    }
  } catch (err) {
    queueJobs.reset();
    queueOldestWaitingAge.reset();
    throw err;
  }
}
