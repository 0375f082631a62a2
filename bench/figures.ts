// The closing table of `npm run bench`: every figure issue #8 asks for, in one place, plus the machine
// it was measured on and the connections sweep behind docs/performance.svg.
import { readFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import type { CfdiStepFigures } from './cfdi-steps.js';
import type { SweepPoint } from './connections.js';
import type { PendingQrFigures } from './pending-qrs.js';
import type { RenderFigures } from './render-qr.js';
import type { StampFigures } from './stamp-e2e.js';

export interface Machine {
  cores: number;
  cpu: string;
  memoryGb: number;
  /** 1, 5 and 15 minute load averages when the bench started: what else was running. */
  loadAtStart: number[];
  /** The same when the table is printed (the bench's own load included). */
  loadAverage: number[];
  node: string;
}

const round2 = (l: number): number => Math.round(l * 100) / 100;
/** Read when run.ts imports this module, before any load is generated. */
const LOAD_AT_START = loadavg().map(round2);

export function machine(): Machine {
  let cpu = cpus()[0]?.model ?? 'unknown';
  try {
    cpu = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? cpu;
  } catch {
    // not Linux: os.cpus() it is
  }
  return {
    cores: availableParallelism(),
    cpu,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    loadAtStart: LOAD_AT_START,
    loadAverage: loadavg().map(round2),
    node: process.version,
  };
}

interface LoadFigures {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
}

export interface AllFigures {
  connections: number;
  ceiling: LoadFigures;
  qrs: LoadFigures;
  ratioPercent: number;
  render: RenderFigures;
  stampFast: StampFigures;
  stampBare: StampFigures;
  stampSlow: StampFigures;
  cfdi: CfdiStepFigures;
  pending: PendingQrFigures;
  sweep: SweepPoint[];
  chart: string;
}

const n = (v: number): string => v.toLocaleString('en-US');

export function printFigures(f: AllFigures): void {
  const pendingCount = n(f.pending.pending);
  const rows: [string, string, string, string][] = [
    [`POST /v1/qrs, ${f.connections} connections`, `${n(f.qrs.requestsPerSecond)} QR/s`, `${f.qrs.p50} ms`, `${f.qrs.p99} ms`],
    [`bare Koa + ajv ceiling, ${f.connections} connections`, `${n(f.ceiling.requestsPerSecond)}/s`, `${f.ceiling.p50} ms`, `${f.ceiling.p99} ms`],
    ['POST /v1/qrs / ceiling (target >= 30 %)', `${f.ratioPercent} %`, '', ''],
    ['QR render (renderQrPng 424 px, one core)', `${n(f.render.pngPerSecond)} PNG/s`, '', ''],
    ['stamping end to end, fake PAC validating, at once', `${f.stampFast.perSecond} CFDI/s`, `${n(f.stampFast.p50Ms)} ms`, `${n(f.stampFast.p99Ms)} ms`],
    ['stamping, PAC not validating, at once (target >= 300)', `${f.stampBare.perSecond} CFDI/s`, `${n(f.stampBare.p50Ms)} ms`, `${n(f.stampBare.p99Ms)} ms`],
    ['stamping, PAC not validating, +300 ms (target >= 150)', `${f.stampSlow.perSecond} CFDI/s`, `${n(f.stampSlow.p50Ms)} ms`, `${n(f.stampSlow.p99Ms)} ms`],
    ['PDF (parse stamped XML + pdfkit, one core)', `${f.cfdi.pdfPerSecond} PDF/s`, `${f.cfdi.pdfMs} ms`, ''],
    ['stamped CFDI and its PDF, mean size', `${f.cfdi.xmlBytes} B XML, ${f.cfdi.pdfBytes} B PDF`, '', ''],
    [`Redis per pending QR (${pendingCount} pending; target <= 50 B)`, `${n(f.pending.redisBytesPerPending)} B`, '', ''],
    ['PostgreSQL per QR: pending / finished (rows only)', `${n(f.pending.pgBytesPerPending)} / ${n(f.pending.pgBytesPerFinished)} B`, '', ''],
    [`GET /v1/qrs/{qrId}, ${pendingCount} pending, 1 conn`, `${n(f.pending.getSerial.requestsPerSecond)}/s`, `${f.pending.getSerial.p50} ms`, `${f.pending.getSerial.p99} ms`],
    [
      `GET /v1/qrs/{qrId}, ${pendingCount} pending, ${f.pending.getLoaded.connections} conn`,
      `${n(f.pending.getLoaded.requestsPerSecond)}/s`,
      `${f.pending.getLoaded.p50} ms`,
      `${f.pending.getLoaded.p99} ms`,
    ],
  ];
  const m = machine();
  const out: string[] = [];
  out.push(
    '',
    `Figures (issue #8): ${m.cores} cores, ${m.cpu}, ${m.memoryGb} GB, node ${m.node}, load average ${m.loadAtStart.join(' ')} at start, ${m.loadAverage.join(' ')} now`,
  );
  out.push(`${'figure'.padEnd(50)}${'rate'.padStart(14)}${'p50'.padStart(10)}${'p99'.padStart(10)}`);
  for (const [name, rate, p50, p99] of rows) out.push(`${name.padEnd(50)}${rate.padStart(14)}${p50.padStart(10)}${p99.padStart(10)}`);
  out.push(
    `(${pendingCount} pending QRs: rows written in ${n(f.pending.seedMs)} ms, expiry planned in ${n(f.pending.planMs)} ms as ${n(f.pending.delayedJobs)} delayed bucket jobs; Redis used_memory +${n(f.pending.redisDeltaBytes)} B; GET non-2xx ${f.pending.getSerial.non2xx + f.pending.getLoaded.non2xx})`,
  );
  out.push('', 'POST /v1/qrs against connections:');
  out.push(`${'connections'.padStart(11)}${'QR/s'.padStart(8)}${'p50'.padStart(8)}${'p90'.padStart(8)}${'p99'.padStart(8)}${'non-2xx'.padStart(9)}`);
  for (const p of f.sweep)
    out.push(
      `${String(p.connections).padStart(11)}${String(p.requestsPerSecond).padStart(8)}${String(p.p50).padStart(8)}${String(p.p90).padStart(8)}${String(p.p99).padStart(8)}${String(p.non2xx).padStart(9)}`,
    );
  out.push(`chart: ${f.chart}`, '');
  process.stdout.write(`${out.join('\n')}\n`);
}
