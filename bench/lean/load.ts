// POST /v1/qrs and GET /v1/qrs/{qrId} under the same load, for whichever server `baseUrl` names: the lean
// one and the project are measured by this one function, so their figures differ only by the server.
import autocannon from 'autocannon';
import { PG_STATS_SETTLE_MS, type ServerCounts } from './counters.js';
import { cpuPerSale, type CpuReading } from './cpu.js';

export interface LoadFigures {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  total: number;
}

/** Per sale of the POST run: the servers' counters and, when read, CPU ms by process (API, worker, PostgreSQL, Redis). */
export type PerSale = ServerCounts & { cpuMs?: Record<string, number> };

export interface QrRouteFigures {
  post: LoadFigures & { perSale?: PerSale };
  /** `perRequest`: the same counters per GET answered (a GET has no worker part: the figure is the API's). */
  get: LoadFigures & { perRequest?: PerSale };
}

export interface QrRouteLoad {
  baseUrl: string;
  /** Headers of every request; called once per request (a new idempotency-key each time). */
  headers: () => Record<string, string>;
  /** The body of each request (a sale_id of its own each time: bench/sale-bodies.ts). */
  body: () => string;
  connections: number;
  seconds: number;
  /** QRs created before the GET run; each GET asks for a random one of them. */
  getTargets: number;
  /** Reads the servers' counters: given, the POST figures carry Redis commands and PostgreSQL transactions per sale. */
  counts?: () => Promise<ServerCounts>;
  /** Reads cumulative CPU by process (bench/lean/cpu.ts): given with `counts`, the POST figures carry CPU ms per sale. */
  cpu?: () => Promise<CpuReading>;
}

function figures(result: autocannon.Result): LoadFigures {
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    total: result.requests.total,
  };
}

/** POSTs of JSON bodies (`body()` per request) to `url` at `connections` for `seconds`, `headers()` per request. */
function postJson(url: string, headers: () => Record<string, string>, body: () => string, connections: number, seconds: number): Promise<autocannon.Result> {
  return autocannon({
    url,
    method: 'POST',
    connections,
    duration: seconds,
    requests: [{ method: 'POST', setupRequest: (req) => ({ ...req, headers: { ...headers(), 'content-type': 'application/json' }, body: body() }) }],
  });
}

/** The figures of one such run. */
export async function postLoad(url: string, headers: () => Record<string, string>, body: () => string, connections: number, seconds: number): Promise<LoadFigures> {
  return figures(await postJson(url, headers, body, connections, seconds));
}

function postRun(o: QrRouteLoad, seconds: number): Promise<autocannon.Result> {
  return postJson(`${o.baseUrl}/v1/qrs`, o.headers, o.body, o.connections, seconds);
}

/** `count` QRs through the server's own POST, ten at a time; their ids. */
async function createTargets(o: QrRouteLoad, count: number): Promise<string[]> {
  const ids: string[] = [];
  const one = async (): Promise<void> => {
    const res = await fetch(`${o.baseUrl}/v1/qrs`, { method: 'POST', headers: { ...o.headers(), 'content-type': 'application/json' }, body: o.body() });
    if (res.status !== 201) throw new Error(`POST ${o.baseUrl}/v1/qrs answered ${res.status}: ${await res.text()}`);
    ids.push(((await res.json()) as { qr_id: string }).qr_id);
  };
  for (let i = 0; i < count; i += 10) await Promise.all(Array.from({ length: Math.min(10, count - i) }, one));
  return ids;
}

/** `run` between two readings of the counters and of CPU (when `o` gives them): its result and its figures per 2xx answer. */
async function counted(o: QrRouteLoad, run: () => Promise<autocannon.Result>): Promise<{ result: autocannon.Result; perSale?: PerSale }> {
  const before = await o.counts?.();
  const cpuBefore = await o.cpu?.();
  const result = await run();
  const cpuAfter = await o.cpu?.();
  if (!o.counts || !before) return { result };
  await new Promise((resolve) => setTimeout(resolve, PG_STATS_SETTLE_MS));
  const after = await o.counts();
  const answers = Math.max(1, result['2xx']);
  const per = (n: number) => Math.round((n / answers) * 10) / 10;
  const byCommand = Object.fromEntries(
    Object.entries(after.redisByCommand)
      .map(([name, calls]) => [name, per(calls - (before.redisByCommand[name] ?? 0))] as const)
      .filter(([, n]) => n > 0),
  );
  return {
    result,
    perSale: {
      redisCommands: per(after.redisCommands - before.redisCommands),
      redisByCommand: byCommand,
      pgTransactions: per(after.pgTransactions - before.pgTransactions),
      ...(cpuBefore && cpuAfter ? { cpuMs: cpuPerSale(cpuBefore, cpuAfter, answers) } : {}),
    },
  };
}

/** Warm-up (JIT, pools) for a third of the time, then POST, then a GET warm-up and GET of random QRs the server made. */
export async function measureQrRoutes(o: QrRouteLoad): Promise<QrRouteFigures> {
  await postRun(o, Math.max(1, Math.round(o.seconds / 3)));
  const settled = () => new Promise((resolve) => setTimeout(resolve, PG_STATS_SETTLE_MS));
  if (o.counts) await settled();
  const { result, perSale } = await counted(o, () => postRun(o, o.seconds));
  const post: QrRouteFigures['post'] = { ...figures(result), ...(perSale ? { perSale } : {}) };
  const ids = await createTargets(o, o.getTargets);
  const headers = o.headers();
  const getRun = (seconds: number) =>
    autocannon({
      url: o.baseUrl,
      connections: o.connections,
      duration: seconds,
      requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: `/v1/qrs/${ids[Math.floor(Math.random() * ids.length)]!}`, headers }) }],
    });
  // The GET path's own warm-up (its view and SELECT have not run yet), then the measured run.
  await getRun(Math.max(1, Math.round(o.seconds / 3)));
  if (o.counts) await settled();
  const measured = await counted(o, () => getRun(o.seconds));
  return { post, get: { ...figures(measured.result), ...(measured.perSale ? { perRequest: measured.perSale } : {}) } };
}
