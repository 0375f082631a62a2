/**
 * The operator's status page as HTML, from figures read elsewhere (shared/status/status-figures.ts and the
 * queue depths): bar charts in inline SVG and the same numbers in tables. No script at all, and no inline
 * style attribute: the one <style> element is allowed by its hash (STATUS_PAGE_CSP), so the page runs under
 * `default-src 'none'`. Every text from the data is escaped.
 */
import { createHash } from 'node:crypto';
import type { QueueDepth } from '../../shared/platform/queue-depths.js';
import { booksSection, type BooksPanel } from './books-summary-section.js';
import type { PacCredentialsAlarm } from '../../shared/adapters/pac/pac-credentials-alarm.js';
import { pacCredentialsSection } from './pac-credentials-section.js';
import type { HourFigures, StatusFigures } from '../../shared/status/status-figures.js';
import type { AttentionSummary } from '../../shared/status/needs-attention.js';
import type { OfflineAndExportFigures } from '../../shared/status/offline-and-exports.js';

export interface StatusPage {
  figures: StatusFigures;
  /** Undefined when Redis could not be read. */
  queues: QueueDepth[] | undefined;
  now: Date;
  /** Where the queue dashboard is, for links to its jobs. */
  queueDashboardPath: string;
  /** A merchant's month of books, chosen with the page's form (absent: the form alone, for this month). */
  books?: BooksPanel;
  /** The page's own path, where its form sends the merchant asked for. */
  path?: string;
  /** Raised while the PAC refuses the service's credentials. */
  pacCredentials?: PacCredentialsAlarm;
  /** What the service stopped retrying, per kind (shared/status/needs-attention.ts); undefined when it could not be read. */
  attention?: AttentionSummary[];
  /** Offline tickets and ZIP exports (shared/status/offline-and-exports.ts); undefined when they could not be read. */
  offlineAndExports?: OfflineAndExportFigures;
}

/** Reloads itself this often, without a script. */
export const REFRESH_SECONDS = 60;

const CSS = `
:root{color-scheme:light;--ink:#1d2733;--muted:#5b6776;--line:#d8dee6;--card:#fff;--bg:#f3f5f8;--created:#2f6fde;--scanned:#1c9a8f;--invoiced:#2e9d4b;--expired:#c98a13;--refused:#d1433c;--latency:#7b4fd1}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);background:var(--bg)}
header{padding:20px 28px 8px}
h1{margin:0;font-size:22px}
h2{margin:0 0 12px;font-size:16px}
header p,.note{margin:4px 0 0;color:var(--muted)}
.note{margin:0 0 14px}
main{padding:8px 28px 28px;display:grid;gap:20px}
section{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:16px 18px}
a{color:var(--created)}
.tiles{display:grid;grid-template-columns:repeat(auto-fit,minmax(150px,1fr));gap:12px;margin-bottom:14px}
.tile{border-left:4px solid var(--line);padding:4px 10px}
.tile b{display:block;font-size:24px;font-variant-numeric:tabular-nums}
.tile span{color:var(--muted)}
.tile.created{border-color:var(--created)}.tile.scanned{border-color:var(--scanned)}.tile.invoiced{border-color:var(--invoiced)}
.tile.expired{border-color:var(--expired)}.tile.refused{border-color:var(--refused)}.tile.latency{border-color:var(--latency)}
.charts{display:grid;grid-template-columns:repeat(2,minmax(0,1fr));gap:16px 28px}
@media (max-width:760px){.charts{grid-template-columns:1fr}}
figure{margin:0}
figcaption{font-weight:600;margin-bottom:4px}
svg{display:block;width:100%;height:auto}
svg text{font-size:10px;fill:var(--muted)}
svg .axis{stroke:var(--line)}
rect.created{fill:var(--created)}rect.scanned{fill:var(--scanned)}rect.invoiced{fill:var(--invoiced)}
rect.expired{fill:var(--expired)}rect.refused{fill:var(--refused)}rect.latency{fill:var(--latency)}
table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}
th,td{padding:4px 8px;border-bottom:1px solid var(--line);text-align:right;white-space:nowrap}
th:first-child,td:first-child{text-align:left}
thead th{color:var(--muted);font-weight:600}
td.alert{color:var(--refused);font-weight:700}
td.cause{white-space:normal;text-align:left}
details summary{cursor:pointer;font-weight:600}
form{margin:0 0 12px}
input,button{font:inherit}
h3{margin:14px 0 6px;font-size:14px}
ul{margin:0;padding-left:18px}
li.alert,p.alert{color:var(--refused)}
section table+table{margin-top:12px}
`;

/**
 * The page's policy: nothing but its own style element (by hash) and its empty data: icon (so the browser
 * does not ask for /favicon.ico); no script, font or frame; its one form (a merchant's month) sends to itself.
 */
export const STATUS_PAGE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(CSS).digest('base64')}'`,
  'img-src data:',
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const count = (n: number) => n.toLocaleString('en-US');
const hourLabel = (hour: Date) => hour.toISOString().slice(11, 16);

/** 0.8 s, 14 s, 3.5 min; a dash when nothing was measured. */
export function duration(seconds: number | null): string {
  if (seconds === null) return '—';
  if (seconds < 10) return `${seconds.toFixed(1)} s`;
  if (seconds < 120) return `${Math.round(seconds)} s`;
  if (seconds < 7200) return `${(seconds / 60).toFixed(1)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

const tile = (kind: string, value: string, label: string) => `<div class="tile ${kind}"><b>${escape(value)}</b><span>${escape(label)}</span></div>`;

const WIDTH = 480;
const HEIGHT = 150;
const TOP = 14;
const BOTTOM = 20;
const LEFT = 4;

/** One bar per hour; each bar's <title> is its tooltip. `value` null draws no bar (nothing measured). */
function barChart(kind: string, caption: string, hours: HourFigures[], value: (h: HourFigures) => number | null, format: (v: number) => string): string {
  const values = hours.map(value);
  const max = Math.max(0, ...values.map((v) => v ?? 0));
  const slot = (WIDTH - LEFT) / hours.length;
  const plot = HEIGHT - TOP - BOTTOM;
  const bars = hours
    .map((h, i) => {
      const v = values[i] ?? null;
      const height = v === null || max === 0 ? 0 : Math.max(v > 0 ? 1 : 0, (v / max) * plot);
      const tip = `${hourLabel(h.hour)}–${hourLabel(new Date(h.hour.getTime() + 3_600_000))} UTC: ${v === null ? 'none' : format(v)}`;
      return `<rect class="${kind}" x="${(LEFT + i * slot + 1).toFixed(1)}" y="${(TOP + plot - height).toFixed(1)}" width="${(slot - 2).toFixed(1)}" height="${height.toFixed(1)}"><title>${escape(tip)}</title></rect>`;
    })
    .join('');
  const ticks = hours.map((h, i) => (i % 6 === 0 ? `<text x="${(LEFT + i * slot).toFixed(1)}" y="${HEIGHT - 6}">${hourLabel(h.hour)}</text>` : '')).join('');
  return `<figure><figcaption>${escape(caption)}</figcaption>
<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${escape(`${caption}, last 24 hours: highest ${format(max)}`)}">
<text x="${LEFT}" y="10">max ${escape(format(max))}</text><line class="axis" x1="${LEFT}" y1="${TOP + plot + 0.5}" x2="${WIDTH}" y2="${TOP + plot + 0.5}"/>${bars}${ticks}</svg></figure>`;
}

function qrSection(figures: StatusFigures): string {
  const total = (key: 'created' | 'scanned' | 'invoiced' | 'expired') => figures.hours.reduce((sum, h) => sum + h[key], 0);
  const charts = (
    [
      ['created', 'Created per hour'],
      ['scanned', 'Scanned per hour'],
      ['invoiced', 'Invoiced per hour'],
      ['expired', 'Expired per hour'],
    ] as const
  )
    .map(([key, caption]) => barChart(key, caption, figures.hours, (h) => h[key], count))
    .join('');
  return `<section aria-labelledby="qrs"><h2 id="qrs">QRs, last 24 hours</h2>
<div class="tiles">${tile('created', count(total('created')), 'created')}${tile('scanned', count(total('scanned')), 'scanned')}${tile('invoiced', count(total('invoiced')), 'invoiced')}${tile('expired', count(total('expired')), 'expired')}</div>
<div class="charts">${charts}</div></section>`;
}

function stampSection(figures: StatusFigures, queues: QueueDepth[] | undefined, now: Date, dashboard: string): string {
  const { day, stamping } = figures;
  const waiting = stamping.oldestSince ? `${count(stamping.count)} (oldest ${duration((now.getTime() - stamping.oldestSince.getTime()) / 1000)})` : count(stamping.count);
  const failedJobs = queues?.find((q) => q.queue === 'stamp')?.counts.failed;
  const codes = figures.refusalCodes.length === 0 ? 'none' : figures.refusalCodes.map((c) => `<code>${escape(c.code)}</code> × ${count(c.count)}`).join(', ');
  return `<section aria-labelledby="stamps"><h2 id="stamps">Stamping, last 24 hours</h2>
<div class="tiles">${tile('invoiced', count(day.stamped), 'CFDIs stamped')}${tile('latency', duration(day.p50Seconds), 'stamp latency p50')}${tile('latency', duration(day.p95Seconds), 'stamp latency p95')}${tile('refused', count(day.refused), 'refused')}${tile('expired', waiting, 'waiting for the PAC now')}${tile('refused', failedJobs === undefined ? '—' : count(failedJobs), 'stamp jobs failed for good')}</div>
<p class="note">Latency: from the confirmation (or the request of a credit note, payment complement or global invoice) to the PAC's stamp time, to the second. Refusal codes: ${codes}. Failed jobs: <a href="${escape(`${dashboard}/queue/stamp?status=failed`)}">the queue dashboard</a>.</p>
<div class="charts">${barChart('latency', 'Stamp latency p95 per hour', figures.hours, (h) => h.p95Seconds, duration)}${barChart('refused', 'Refused per hour', figures.hours, (h) => h.refused, count)}</div></section>`;
}

function queueSection(queues: QueueDepth[] | undefined, dashboard: string): string {
  if (!queues)
    return `<section aria-labelledby="queues"><h2 id="queues">Queues</h2><p class="note">Redis did not answer: no queue depths (see <a href="/health">/health</a>).</p></section>`;
  const rows = queues
    .map(
      (q) =>
        `<tr data-queue="${escape(q.queue)}"><td><a href="${escape(`${dashboard}/queue/${q.queue}`)}">${escape(q.queue)}</a></td><td>${count(q.counts.waiting)}</td><td>${count(q.counts.active)}</td><td>${count(q.counts.delayed)}</td><td>${count(q.scheduled)}</td><td${q.counts.failed > 0 ? ' class="alert"' : ''}>${count(q.counts.failed)}</td><td>${q.counts.waiting > 0 ? duration(q.oldestWaitingSeconds) : '—'}</td></tr>`,
    )
    .join('');
  return `<section aria-labelledby="queues"><h2 id="queues">Queues now</h2>
<table><thead><tr><th scope="col">queue</th><th scope="col">waiting</th><th scope="col">active</th><th scope="col">delayed</th><th scope="col" title="periodic sweeps (job schedulers), each with its next run">scheduled</th><th scope="col">failed</th><th scope="col">oldest waiting</th></tr></thead><tbody>${rows}</tbody></table>
<p class="note">Delayed: jobs held back until a later time (retries, webhook back-off). Scheduled: the periodic sweeps (expiry, stamp recovery, …), each holding its next run; they are not work piling up.</p></section>`;
}

/** Items listed per kind on the page; the count says how many more there are (`npm run cli -- attention list` shows them all). */
export const ATTENTION_ROWS = 20;

/** What the service stopped retrying, each with its kind, id, merchant (or account), cause and since; acted on with the CLI. */
function attentionSection(attention: AttentionSummary[] | undefined, now: Date): string {
  const head = `<section aria-labelledby="attention"><h2 id="attention">Needs attention</h2>`;
  if (!attention) return `${head}<p class="note alert">The list could not be read (see the log).</p></section>`;
  const total = attention.reduce((sum, k) => sum + k.count, 0);
  const counts = attention
    .map((k) => `<li${k.count > 0 ? ' class="alert"' : ''} data-kind="${escape(k.kind)}"><code>${escape(k.kind)}</code>: ${count(k.count)} — ${escape(k.what)}</li>`)
    .join('');
  const rows = attention
    .flatMap((k) =>
      k.items.map(
        (item) =>
          `<tr data-attention="${escape(`${k.kind}:${item.id}`)}"><td><code>${escape(k.kind)}</code></td><td><code>${escape(item.id)}</code></td><td>${escape(item.merchantId ?? (item.accountId ? `account ${item.accountId}` : '—'))}</td><td class="cause">${escape(item.cause)}</td><td title="${escape(item.since.toISOString())}">${duration((now.getTime() - item.since.getTime()) / 1000)} ago</td></tr>`,
      ),
    )
    .join('');
  const table =
    total === 0
      ? '<p class="note">Nothing: every job is running, retrying within its bounds or done.</p>'
      : `<table><thead><tr><th scope="col">kind</th><th scope="col">id</th><th scope="col">merchant</th><th scope="col">cause</th><th scope="col">since</th></tr></thead><tbody>${rows}</tbody></table>`;
  return `${head}<ul>${counts}</ul>${table}
<p class="note">Nothing here is retried by itself any more. Act on each with <code>npm run cli -- attention retry &lt;kind&gt; &lt;id&gt;</code> or <code>attention give-up &lt;kind&gt; &lt;id&gt;</code> (docs/operations.md, Runbook); the oldest ${ATTENTION_ROWS} of each kind are listed.</p></section>`;
}

const megabytes = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`;

function offlineAndExportsSection(f: OfflineAndExportFigures | undefined, now: Date): string {
  const head = `<section aria-labelledby="offline-exports"><h2 id="offline-exports">Offline tickets and exports</h2>`;
  if (!f) return `${head}<p class="note alert">The figures could not be read (see the log).</p></section>`;
  const next = f.nextClaimCloses ? `the next closes in ${duration(Math.max(0, (f.nextClaimCloses.getTime() - now.getTime()) / 1000))}` : 'none waiting';
  return `${head}<ul>
<li data-figure="claims-waiting">${count(f.claimsWaiting)} buyers' claims waiting for their sale (${escape(next)})</li>
<li data-figure="claims-refused"${f.claimsRefused24h > 0 ? ' class="alert"' : ''}>${count(f.claimsRefused24h)} claims refused in the last 24 hours (the buyer was told why by e-mail)</li>
<li data-figure="keys">${count(f.keysActive)} offline keys in use, ${count(f.keysRevoked24h)} revoked in the last 24 hours</li>
<li data-figure="exports">ZIP exports kept: ${count(f.exports.PENDING)} pending, ${count(f.exports.RUNNING)} building, ${count(f.exports.READY)} ready (${megabytes(f.exportBytes)} in the file store), <span${f.exports.FAILED > 0 ? ' class="alert"' : ''}>${count(f.exports.FAILED)} failed</span></li>
</ul></section>`;
}

function hourTable(figures: StatusFigures): string {
  const rows = [...figures.hours]
    .reverse()
    .map(
      (h) =>
        `<tr data-hour="${h.hour.toISOString()}"><td>${hourLabel(h.hour)}</td><td>${count(h.created)}</td><td>${count(h.scanned)}</td><td>${count(h.invoiced)}</td><td>${count(h.expired)}</td><td>${count(h.stamped)}</td><td>${duration(h.p50Seconds)}</td><td>${duration(h.p95Seconds)}</td><td${h.refused > 0 ? ' class="alert"' : ''}>${count(h.refused)}</td></tr>`,
    )
    .join('');
  return `<section aria-labelledby="hours"><details><summary id="hours">Hour by hour (UTC), newest first</summary>
<table><thead><tr><th scope="col">hour</th><th scope="col">created</th><th scope="col">scanned</th><th scope="col">invoiced</th><th scope="col">expired</th><th scope="col">stamped</th><th scope="col">p50</th><th scope="col">p95</th><th scope="col">refused</th></tr></thead><tbody>${rows}</tbody></table></details></section>`;
}

export function renderStatusPage(page: StatusPage): string {
  const { figures, queues, now, queueDashboardPath } = page;
  const books = booksSection(page.books ?? { month: now.toISOString().slice(0, 7) }, page.path ?? '/admin/status', escape);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta http-equiv="refresh" content="${REFRESH_SECONDS}"><title>Autofactura status</title><link rel="icon" href="data:,"><style>${CSS}</style></head>
<body><header><h1>Autofactura status</h1><p>The last 24 hours by the hour (UTC), read ${escape(now.toISOString().slice(0, 19).replace('T', ' '))} UTC; the page reloads every minute. Jobs: <a href="${escape(queueDashboardPath)}">queue dashboard</a>.</p></header>
<main>${pacCredentialsSection(page.pacCredentials, escape)}${attentionSection(page.attention, now)}${qrSection(figures)}${offlineAndExportsSection(page.offlineAndExports, now)}${stampSection(figures, queues, now, queueDashboardPath)}${queueSection(queues, queueDashboardPath)}${hourTable(figures)}${books}</main></body></html>`;
}
