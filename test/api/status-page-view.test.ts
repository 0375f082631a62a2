import { expect } from 'chai';
import { duration, renderStatusPage, type StatusPage } from '../../api/admin/status-page-view.js';
import { HOUR_MS, statusWindow, type StatusFigures } from '../../shared/status/status-figures.js';

const now = new Date('2026-03-14T17:30:00Z');

function figures(overrides: Partial<StatusFigures> = {}): StatusFigures {
  const { from, to } = statusWindow(now);
  const hours = Array.from({ length: 24 }, (_, i) => ({
    hour: new Date(from.getTime() + i * HOUR_MS),
    created: i,
    scanned: 0,
    invoiced: 0,
    expired: 0,
    refused: 0,
    stamped: 0,
    p50Seconds: null,
    p95Seconds: null,
    maxSeconds: null,
  }));
  return {
    from,
    to,
    hours,
    day: { stamped: 0, p50Seconds: null, p95Seconds: null, maxSeconds: null, refused: 0 },
    refusalCodes: [],
    stamping: { count: 0, oldestSince: null },
    ...overrides,
  };
}

const page = (overrides: Partial<StatusPage> = {}) => renderStatusPage({ figures: figures(), queues: [], now, queueDashboardPath: '/admin/queues', ...overrides });

describe("the status page's view (api/admin/status-page-view.ts)", () => {
  it('writes durations as an operator reads them', () => {
    expect([null, 0, 0.84, 9.94, 42.4, 210, 9000].map(duration)).to.deep.equal(['—', '0.0 s', '0.8 s', '9.9 s', '42 s', '3.5 min', '2.5 h']);
  });

  it('escapes what comes from the data: a refusal code is text, never markup', () => {
    const html = page({ figures: figures({ refusalCodes: [{ code: '<img src=x onerror=alert(1)>', count: 2 }] }) });
    expect(html).to.not.contain('<img');
    expect(html).to.contain('<code>&#60;img src=x onerror=alert(1)&#62;</code> × 2');
  });

  it('draws a bar per hour with its figure as its tooltip, and names the highest', () => {
    const html = page();
    expect(html).to.contain('<title>16:00–17:00 UTC: 22</title>');
    expect(html).to.contain('aria-label="Created per hour, last 24 hours: highest 23"');
  });

  it('says how long the oldest CFDI has waited for the PAC, and that the queues are unknown when Redis did not answer', () => {
    const html = page({ figures: figures({ stamping: { count: 3, oldestSince: new Date(now.getTime() - 150_000) } }), queues: undefined });
    expect(html).to.contain('<b>3 (oldest 2.5 min)</b><span>waiting for the PAC now</span>');
    expect(html).to.contain('Redis did not answer: no queue depths');
    expect(html).to.contain('<b>—</b><span>stamp jobs failed for good</span>');
  });
});
