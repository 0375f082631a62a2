// Bench only: the project's API as BENCH_API_PROCESSES processes on one port, as production runs several
// `web` processes behind a load balancer (docs/deployment.md, "Scaling"). node:cluster's primary stands in
// for the load balancer (it hands each new connection to the next process) and starts the development fakes
// once, as bin/web.ts does; its processes inherit their addresses. Each process runs the production entry,
// api/main.ts, unchanged. SIGTERM to the primary stops them all and waits for their exits; one exiting on
// its own stops the rest (a bench must not go on with fewer processes than it says).
import cluster, { type Worker } from 'node:cluster';
import { startDevServices } from '../bin/dev-services.js';

if (cluster.isPrimary) {
  let stopping = false;
  const stop = (code: number) => {
    stopping = true;
    const running = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && !w.isDead());
    const exits = running.map((w) => new Promise((resolve) => w.once('exit', resolve)));
    for (const w of running) w.kill('SIGTERM');
    void Promise.all(exits).then(() => process.exit(code));
  };
  cluster.on('exit', (_worker, code, signal) => {
    if (stopping) return;
    process.stderr.write(`an API process exited (${String(code ?? signal)}): stopping the others\n`);
    stop(1);
  });
  process.on('SIGTERM', () => stop(0));
  await startDevServices();
  for (let i = 0; i < Number(process.env.BENCH_API_PROCESSES ?? 1); i++) cluster.fork();
} else {
  await import('../api/main.js');
}
