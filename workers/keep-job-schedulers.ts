import type { Config } from '../shared/platform/config.js';
import { JOBS, type JobName } from '../shared/platform/jobs.js';
import type { Logger } from '../shared/platform/logger.js';
import { jobOptions, type Producers } from '../shared/platform/queues.js';

interface SchedulerSpec {
  id: string;
  name: JobName;
  every: number;
}

/** Every job of the catalog that runs by itself (an `every`), under its own id. */
function schedulerSpecs(config: Readonly<Config>): SchedulerSpec[] {
  return (Object.keys(JOBS) as JobName[]).flatMap((name) => {
    const spec = JOBS[name];
    // A scheduled job has no payload: its id is fixed.
    const id = spec.every ? spec.id?.({} as never) : undefined;
    return spec.every && id ? [{ id, name, every: spec.every(config) }] : [];
  });
}

/**
 * Upserts the sweeps' job schedulers, then keeps them there. Issue #8 (`npm run chaos`, redis-flush): the
 * schedulers live in Redis, so a Redis that lost its data (FLUSHALL, a restart without persistence) lost
 * them too and no sweep ran again until a worker restarted: expiries and stamps whose jobs were lost with
 * it stayed undone. Every min(30 s, the shortest sweep period) a missing scheduler is upserted again (an
 * `every` scheduler runs at once when created); present ones are left alone, so periods are not reset.
 */
export async function keepJobSchedulers(producers: Producers, config: Readonly<Config>, logger: Logger): Promise<{ stop(): void }> {
  const specs = schedulerSpecs(config);
  // Shard 0's queue (shardKeyOf): one scheduler per job in the whole deployment, whatever QUEUE_SHARDS is.
  const scheduling = (s: SchedulerSpec) => producers.queues(JOBS[s.name].queue)[0]!;
  const upsert = (s: SchedulerSpec) => {
    const { jobId: _id, ...opts } = jobOptions(s.name, {} as never, config);
    return scheduling(s).upsertJobScheduler(s.id, { every: s.every }, { name: s.name, data: {}, opts });
  };
  for (const s of specs) await upsert(s);
  let checking = false;
  const timer = setInterval(
    () => {
      if (checking) return;
      checking = true;
      void (async () => {
        for (const s of specs) {
          if (await scheduling(s).getJobScheduler(s.id)) continue;
          await upsert(s);
          logger.warn({ scheduler: s.id }, 'job scheduler was missing from Redis; created again');
        }
      })()
        .catch((err: unknown) => logger.warn({ err }, 'job schedulers not checked (Redis unavailable?)'))
        .finally(() => {
          checking = false;
        });
    },
    Math.min(30_000, config.expirySweepMs, config.stampSweepMs),
  );
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
