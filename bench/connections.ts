// POST /v1/qrs at several connection counts (BENCH_SWEEP_CONNECTIONS, BENCH_SWEEP_SECONDS each): the
// throughput and latency curve drawn by bench/chart.ts. Part of `npm run bench`.
import autocannon from 'autocannon';

export interface SweepPoint {
  connections: number;
  requestsPerSecond: number;
  p50: number;
  p90: number;
  p99: number;
  non2xx: number;
  errors: number;
}

export function sweepConnections(): number[] {
  const list = (process.env.BENCH_SWEEP_CONNECTIONS ?? '1,5,10,25,50,100').split(',').map((s) => Number(s.trim()));
  if (list.length === 0 || list.some((n) => !Number.isInteger(n) || n < 1)) throw new Error('BENCH_SWEEP_CONNECTIONS: a comma-separated list of positive integers');
  return [...new Set(list)].sort((a, b) => a - b);
}

export async function benchConnectionSweep(options: {
  url: string;
  headers: () => Record<string, string>;
  body: () => string;
  connections: number[];
  seconds: number;
}): Promise<SweepPoint[]> {
  const points: SweepPoint[] = [];
  for (const connections of options.connections) {
    const result = await autocannon({
      url: options.url,
      method: 'POST',
      connections,
      duration: options.seconds,
      requests: [{ method: 'POST', setupRequest: (req) => ({ ...req, headers: { ...options.headers(), 'content-type': 'application/json' }, body: options.body() }) }],
    });
    points.push({
      connections,
      requestsPerSecond: Math.round(result.requests.average),
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      non2xx: result.non2xx,
      errors: result.errors,
    });
  }
  return points;
}
