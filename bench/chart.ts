// The chart of docs/performance.md, written as SVG text from a run's figures (no chart library): POST
// /v1/qrs throughput (left) and p50/p99 latency (right) against connections, on a log axis of the
// connection counts measured, with the targets as dashed lines.
import type { SweepPoint } from './connections.js';

export interface ChartContext {
  /** Bare Koa parse + validate at 50 connections: the 30 % target line is drawn from it. */
  ceilingPerSecond: number;
  /** One line under the title: machine, date, seconds per point. */
  caption: string;
}

const W = 1010;
const H = 420;
const PANEL_W = 400;
const PANEL_H = 270;
const TOP = 80;
const LEFTS = [80, 80 + PANEL_W + 100];
const COLORS = { rate: '#1f6feb', p50: '#2da44e', p99: '#cf222e', target: '#6e7781', grid: '#d0d7de', text: '#24292f' };

function esc(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A round upper bound and its 5 ticks (1, 2, 2.5 or 5 × 10^k per step). */
function niceScale(max: number): number[] {
  const raw = Math.max(max, 1) / 5;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 2.5, 5, 10].find((m) => m * mag >= raw) ?? 10) * mag;
  return Array.from({ length: 6 }, (_, i) => Math.round(i * step * 100) / 100);
}

function fmt(n: number): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: 1 });
}

/** `below`: value labels under the points (keeps two close series readable). */
interface Series {
  name: string;
  color: string;
  values: number[];
  dash?: string;
  below?: boolean;
}

function panel(left: number, title: string, unit: string, xs: number[], series: Series[], targets: { value: number; label: string }[]): string {
  const all = [...series.flatMap((s) => s.values), ...targets.map((t) => t.value)];
  const ticks = niceScale(Math.max(...all) * 1.05);
  const yMax = ticks[ticks.length - 1]!;
  const logMin = Math.log10(xs[0]!);
  const logSpan = Math.log10(xs[xs.length - 1]!) - logMin;
  const x = (c: number): number => left + (logSpan === 0 ? PANEL_W / 2 : ((Math.log10(c) - logMin) / logSpan) * (PANEL_W - 20) + 10);
  const y = (v: number): number => TOP + PANEL_H - (v / yMax) * PANEL_H;
  const out: string[] = [];
  out.push(`<text x="${left + PANEL_W / 2}" y="${TOP - 14}" text-anchor="middle" font-size="15" font-weight="600" fill="${COLORS.text}">${esc(title)}</text>`);
  for (const t of ticks) {
    out.push(`<line x1="${left}" x2="${left + PANEL_W}" y1="${y(t).toFixed(1)}" y2="${y(t).toFixed(1)}" stroke="${COLORS.grid}" stroke-width="1"/>`);
    out.push(`<text x="${left - 8}" y="${(y(t) + 4).toFixed(1)}" text-anchor="end" font-size="12" fill="${COLORS.text}">${fmt(t)}</text>`);
  }
  for (const c of xs) {
    out.push(`<line x1="${x(c).toFixed(1)}" x2="${x(c).toFixed(1)}" y1="${TOP + PANEL_H}" y2="${TOP + PANEL_H + 5}" stroke="${COLORS.text}"/>`);
    out.push(`<text x="${x(c).toFixed(1)}" y="${TOP + PANEL_H + 20}" text-anchor="middle" font-size="12" fill="${COLORS.text}">${c}</text>`);
  }
  out.push(`<line x1="${left}" x2="${left + PANEL_W}" y1="${TOP + PANEL_H}" y2="${TOP + PANEL_H}" stroke="${COLORS.text}"/>`);
  out.push(`<line x1="${left}" x2="${left}" y1="${TOP}" y2="${TOP + PANEL_H}" stroke="${COLORS.text}"/>`);
  out.push(`<text x="${left + PANEL_W / 2}" y="${TOP + PANEL_H + 40}" text-anchor="middle" font-size="12" fill="${COLORS.text}">connections (log scale)</text>`);
  out.push(`<text transform="translate(${left - 55} ${TOP + PANEL_H / 2}) rotate(-90)" text-anchor="middle" font-size="12" fill="${COLORS.text}">${esc(unit)}</text>`);
  for (const t of targets) {
    if (t.value > yMax) continue;
    out.push(
      `<line x1="${left}" x2="${left + PANEL_W}" y1="${y(t.value).toFixed(1)}" y2="${y(t.value).toFixed(1)}" stroke="${COLORS.target}" stroke-width="1.5" stroke-dasharray="6 4"/>`,
    );
    out.push(`<text x="${left + 6}" y="${(y(t.value) - 6).toFixed(1)}" font-size="11" fill="${COLORS.target}">${esc(t.label)}</text>`);
  }
  series.forEach((s, si) => {
    const pts = xs.map((c, i) => `${x(c).toFixed(1)},${y(s.values[i]!).toFixed(1)}`);
    out.push(`<polyline points="${pts.join(' ')}" fill="none" stroke="${s.color}" stroke-width="2.5"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}/>`);
    xs.forEach((c, i) => {
      const v = s.values[i]!;
      out.push(
        `<circle cx="${x(c).toFixed(1)}" cy="${y(v).toFixed(1)}" r="3.5" fill="${s.color}"><title>${esc(`${s.name}, ${c} connections: ${fmt(v)} ${unit}`)}</title></circle>`,
      );
      // Under the point, or beside it when that would reach the axis labels.
      const [tx, ty, anchor] = !s.below ? [x(c), y(v) - 8, 'middle'] : y(v) + 16 < TOP + PANEL_H ? [x(c), y(v) + 16, 'middle'] : [x(c) + 7, y(v) - 4, 'start'];
      out.push(`<text x="${tx.toFixed(1)}" y="${ty.toFixed(1)}" text-anchor="${anchor}" font-size="10" fill="${s.color}">${fmt(v)}</text>`);
    });
    const lx = left + PANEL_W - 130;
    const ly = TOP + 14 + si * 18;
    out.push(`<line x1="${lx}" x2="${lx + 22}" y1="${ly - 4}" y2="${ly - 4}" stroke="${s.color}" stroke-width="2.5"/>`);
    out.push(`<text x="${lx + 28}" y="${ly}" font-size="12" fill="${COLORS.text}">${esc(s.name)}</text>`);
  });
  return out.join('\n');
}

/** The whole SVG document for the points of one sweep (sorted by connections). */
export function connectionsChartSvg(points: SweepPoint[], context: ChartContext): string {
  if (points.length === 0) throw new Error('no points to draw');
  const sorted = [...points].sort((a, b) => a.connections - b.connections);
  const xs = sorted.map((p) => p.connections);
  const target = Math.round(context.ceilingPerSecond * 0.3);
  const body = [
    panel(
      LEFTS[0]!,
      'POST /v1/qrs throughput',
      'QRs per second',
      xs,
      [{ name: 'QRs/s', color: COLORS.rate, values: sorted.map((p) => p.requestsPerSecond) }],
      [{ value: target, label: `target: 30 % of the bare ceiling (${fmt(target)}/s)` }],
    ),
    panel(
      LEFTS[1]!,
      'POST /v1/qrs latency',
      'milliseconds',
      xs,
      [
        { name: 'p50', color: COLORS.p50, values: sorted.map((p) => p.p50), below: true },
        { name: 'p99', color: COLORS.p99, values: sorted.map((p) => p.p99) },
      ],
      [{ value: 100, label: 'target: p99 < 100 ms' }],
    ),
  ];
  return `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="system-ui, -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif">
<rect width="${W}" height="${H}" fill="#ffffff"/>
<text x="${W / 2}" y="26" text-anchor="middle" font-size="17" font-weight="600" fill="${COLORS.text}">POST /v1/qrs against connections (API + workers, loopback)</text>
<text x="${W / 2}" y="46" text-anchor="middle" font-size="12" fill="${COLORS.target}">${esc(context.caption)}</text>
${body.join('\n')}
</svg>
`;
}
