// Node.js lines compared in one run (issue #30): the CPU-bound steps of a sale and an invoice — the QR
// render, the CFDI's build, cadena, seal and PDF — timed by each runtime in turn, interleaved (A B A B …) so
// a machine whose speed wanders between minutes wanders for both. `npm run bench:runtime`; the runtimes are
// the node running this script and BENCH_BASELINE_NODE (default /usr/bin/node, Debian's line).
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { benchCfdiSteps } from './cfdi-steps.js';
import { benchRenderQr } from './render-qr.js';

const ROUNDS = Number(process.env.BENCH_RUNTIME_ROUNDS ?? 3);

interface RuntimeFigures {
  node: string;
  pngPerSecond: number;
  buildMs: number;
  cadenaMs: number;
  sealMs: number;
  pdfPerSecond: number;
}

/** One round in this process: what a child prints as its one JSON line. */
async function measureHere(): Promise<RuntimeFigures> {
  const render = await benchRenderQr({ seconds: 3 });
  const steps = await benchCfdiSteps();
  return { node: process.version, pngPerSecond: render.pngPerSecond, buildMs: steps.buildMs, cadenaMs: steps.cadenaMs, sealMs: steps.sealMs, pdfPerSecond: steps.pdfPerSecond };
}

function measureWith(node: string): RuntimeFigures {
  const child = spawnSync(node, ['--import', 'tsx', new URL(import.meta.url).pathname, '--child'], { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (child.status !== 0) throw new Error(`${node}: exit ${child.status}\n${child.stderr}`);
  return JSON.parse(child.stdout.trim().split('\n').at(-1)!) as RuntimeFigures;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  if (process.argv.includes('--child')) {
    process.stdout.write(`${JSON.stringify(await measureHere())}\n`);
    return;
  }
  const runtimes = [process.env.BENCH_BASELINE_NODE ?? '/usr/bin/node', process.execPath];
  const runs = new Map<string, RuntimeFigures[]>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const node of runtimes) {
      const figures = measureWith(node);
      runs.set(figures.node, [...(runs.get(figures.node) ?? []), figures]);
      process.stderr.write(`round ${round + 1}: ${JSON.stringify(figures)}\n`);
    }
  }
  const [baseline, current] = [...runs.values()].map((list) => ({
    node: list[0]!.node,
    pngPerSecond: median(list.map((f) => f.pngPerSecond)),
    buildMs: median(list.map((f) => f.buildMs)),
    cadenaMs: median(list.map((f) => f.cadenaMs)),
    sealMs: median(list.map((f) => f.sealMs)),
    pdfPerSecond: median(list.map((f) => f.pdfPerSecond)),
  }));
  if (!baseline || !current) throw new Error('both runtimes must differ: set BENCH_BASELINE_NODE to another node binary');
  process.stdout.write(`median of ${ROUNDS} interleaved rounds\n`);
  process.stdout.write(`figure               ${baseline.node.padStart(10)} ${current.node.padStart(10)}   ratio\n`);
  for (const [name, key, higherIsBetter] of [
    ['QR PNG/s', 'pngPerSecond', true],
    ['CFDI build ms', 'buildMs', false],
    ['cadena ms', 'cadenaMs', false],
    ['seal ms', 'sealMs', false],
    ['PDF/s', 'pdfPerSecond', true],
  ] as const) {
    const ratio = higherIsBetter ? current[key] / baseline[key] : baseline[key] / current[key];
    process.stdout.write(`${name.padEnd(20)} ${String(baseline[key]).padStart(10)} ${String(current[key]).padStart(10)}   ${ratio.toFixed(2)}×\n`);
  }
  process.stdout.write(`${JSON.stringify({ baseline, current })}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
