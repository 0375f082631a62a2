import { QUEUES } from '../../shared/platform/jobs.js';
import { publicRule } from '../access/access-rules.js';
import { json } from '../routing/openapi-parts.js';
import { defineRoute } from '../routing/route.js';

type Check = { ok: true; latency_ms: number } | { ok: false; error: string };

async function timed(fn: () => Promise<unknown>, timeoutMs: number): Promise<Check> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      fn(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    return { ok: true, latency_ms: Math.round((performance.now() - started) * 100) / 100 };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  } finally {
    clearTimeout(timer);
  }
}

/** GET /health: PostgreSQL, Redis and queue depths; 503 when a dependency is down. */
export const healthRoutes = [
  defineRoute({
    method: 'get',
    path: '/health',
    access: publicRule,
    operationId: 'getHealth',
    summary: 'PostgreSQL, Redis and queue state',
    responses: { 200: { description: 'All up', content: json('Health') }, 503: { description: 'A dependency is down', content: json('Health') } },
    handle: (deps) => async (ctx) => {
      const [postgres, redis] = await Promise.all([timed(() => deps.db.raw('select 1'), 2000), timed(() => deps.redis.ping(), 2000)]);
      const queues: Record<string, Record<string, number>> = {};
      if (redis.ok) {
        await Promise.all(
          Object.values(QUEUES).map(async (name) => {
            // Every shard's counts, summed (QUEUE_SHARDS).
            const shards = await Promise.all(deps.producers.queues(name).map((q) => q.getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed')));
            queues[name] = shards.reduce<Record<string, number>>((sum, counts) => {
              for (const [state, n] of Object.entries(counts)) sum[state] = (sum[state] ?? 0) + n;
              return sum;
            }, {});
          }),
        ).catch(() => undefined);
      }
      const ok = postgres.ok && redis.ok;
      ctx.status = ok ? 200 : 503;
      ctx.body = { status: ok ? 'ok' : 'unavailable', postgres, redis, queues };
    },
  }),
];
