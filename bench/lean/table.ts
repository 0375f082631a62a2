// The lean-vs-project rows of issue #31: each figure for the lean same-work server and for the project,
// measured in the same run, and the ratio the targets are written in (throughput project / lean,
// p99 project / lean).
import type { PerSale, QrRouteFigures } from './load.js';

export interface LeanComparison {
  connections: number;
  seconds: number;
  encoder: string;
  /** How many processes each server ran: the lean server's (node:cluster), the project's API and worker processes. */
  processes: { lean: number; api: number; worker: number };
  lean: QrRouteFigures;
  project: QrRouteFigures;
}

const n = (v: number): string => v.toLocaleString('en-US');
const percent = (project: number, lean: number): string => (lean > 0 ? `${Math.round((project / lean) * 1000) / 10} %` : 'n/a');
const times = (project: number, lean: number): string => (lean > 0 ? `${Math.round((project / lean) * 100) / 100}×` : 'n/a');

export function leanComparisonLines(c: LeanComparison): string[] {
  const rows: [string, string, string, string][] = [];
  const routes = [
    ['POST /v1/qrs', c.lean.post, c.project.post],
    ['GET /v1/qrs/{qrId}', c.lean.get, c.project.get],
  ] as const;
  for (const [route, lean, project] of routes) {
    rows.push([`${route}, rate`, `${n(lean.requestsPerSecond)}/s`, `${n(project.requestsPerSecond)}/s`, percent(project.requestsPerSecond, lean.requestsPerSecond)]);
    rows.push([`${route}, p50`, `${lean.p50} ms`, `${project.p50} ms`, times(project.p50, lean.p50)]);
    rows.push([`${route}, p99`, `${lean.p99} ms`, `${project.p99} ms`, times(project.p99, lean.p99)]);
    rows.push([`${route}, non-2xx / errors`, `${lean.non2xx} / ${lean.errors}`, `${project.non2xx} / ${project.errors}`, '']);
  }
  const perRows = (what: string, unit: string, lean: PerSale | undefined, project: PerSale | undefined) => {
    if (!lean || !project) return;
    rows.push([`${what}, Redis commands per ${unit}`, String(lean.redisCommands), String(project.redisCommands), times(project.redisCommands, lean.redisCommands)]);
    rows.push([`${what}, PostgreSQL transactions per ${unit}`, String(lean.pgTransactions), String(project.pgTransactions), times(project.pgTransactions, lean.pgTransactions)]);
    if (!lean.cpuMs || !project.cpuMs) return;
    const roles = [...new Set([...Object.keys(project.cpuMs), ...Object.keys(lean.cpuMs)])];
    const total = (cpu: Record<string, number>) => Math.round(Object.values(cpu).reduce((sum, ms) => sum + ms, 0) * 100) / 100;
    for (const role of roles) {
      const [l, p] = [lean.cpuMs[role], project.cpuMs[role]];
      rows.push([`${what}, CPU ms per ${unit}: ${role}`, l === undefined ? '–' : String(l), p === undefined ? '–' : String(p), l && p !== undefined ? times(p, l) : '']);
    }
    rows.push([`${what}, CPU ms per ${unit}: all`, String(total(lean.cpuMs)), String(total(project.cpuMs)), times(total(project.cpuMs), total(lean.cpuMs))]);
  };
  perRows('POST', 'sale', c.lean.post.perSale, c.project.post.perSale);
  perRows('GET', 'GET', c.lean.get.perRequest, c.project.get.perRequest);
  const out = [
    '',
    `Against the lean same-work server (issue #31): ${c.connections} connections, ${c.seconds} s each, lean QR encoder: ${c.encoder}`,
    `processes: lean ${c.processes.lean}; project ${c.processes.api} API + ${c.processes.worker} worker`,
    `${'figure'.padEnd(40)}${'lean'.padStart(14)}${'project'.padStart(14)}${'project/lean'.padStart(14)}`,
  ];
  for (const [name, lean, project, ratio] of rows) out.push(`${name.padEnd(40)}${lean.padStart(14)}${project.padStart(14)}${ratio.padStart(14)}`);
  out.push('targets (issue #31): POST rate >= 100 % with p99 <= 1.5×; GET rate >= 60 %');
  return out;
}
