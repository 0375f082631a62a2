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

  it('lists what needs attention, each with its kind, id, merchant or account, cause and since, every text escaped (issue #38)', () => {
    const html = page({
      attention: [
        {
          kind: 'invoice',
          what: 'CFDIs not stamped',
          count: 1,
          items: [{ id: 'inv_1', merchantId: 'mer_<b>', cause: '<script>alert(1)</script> & "more"', since: new Date(now.getTime() - 3 * HOUR_MS) }],
        },
        { kind: 'webhook-delivery', what: 'deliveries FAILED', count: 1, items: [{ id: 'whd_1', accountId: 'acc_1', cause: 'HTTP 500', since: new Date(now.getTime() - 90_000) }] },
      ],
    });
    expect(html).not.to.contain('<script>');
    expect(html).to.contain(
      '<tr data-attention="invoice:inv_1"><td><code>invoice</code></td><td><code>inv_1</code></td><td>mer_&#60;b&#62;</td><td class="cause">&#60;script&#62;alert(1)&#60;/script&#62; &#38; &#34;more&#34;</td><td title="2026-03-14T14:30:00.000Z">3.0 h ago</td></tr>',
    );
    expect(html).to.contain('<td>account acc_1</td><td class="cause">HTTP 500</td><td title="2026-03-14T17:28:30.000Z">90 s ago</td>');
    expect(html).to.match(/<li class="alert" data-kind="invoice"><code>invoice<\/code>: 1 — CFDIs not stamped<\/li>/);
    expect(page({ attention: [{ kind: 'invoice', what: 'x', count: 0, items: [] }] })).to.contain('Nothing: every job is running');
    expect(page({ attention: undefined })).to.contain('The list could not be read');
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

  it("shows a merchant's month added up, every text from the data escaped", () => {
    const figuresOf = (count: number, total: string) => ({ count, total });
    const zero = { iva_transferred: '0.00', ieps_transferred: '0.00', isr_withheld: '0.00', iva_withheld: '0.00', ieps_withheld: '0.00' };
    const html = page({
      books: {
        merchant: 'mer_1',
        month: '2026-03',
        summary: {
          merchant_id: 'mer_1',
          merchant_name: '<i>Tienda</i>',
          issuer: { id: 'iss_1', rfc: 'EKU9003173C9' },
          sales: [
            {
              currency: 'MXN',
              recorded: figuresOf(3, '348.00'),
              invoiced: figuresOf(1, '116.00'),
              global_invoice: figuresOf(1, '116.00'),
              expired_unclaimed: figuresOf(1, '116.00'),
              cancelled: figuresOf(0, '0.00'),
              open: figuresOf(0, '0.00'),
            },
          ],
          cfdis: [
            { cfdi_type: 'I', cancelled: true, currency: 'MXN', count: 1, subtotal: '100.00', discount: '0.00', taxes: { ...zero, iva_transferred: '16.00' }, total: '116.00' },
          ],
          credit_notes: [],
          payment_complements: [],
          differences: [
            { code: 'sale_not_reported', message: 'Sale <script>alert(1)</script> was neither invoiced nor reported', qr_id: 'tra_1', sale_id: '<script>alert(1)</script>' },
          ],
          differences_total: 1,
        },
      },
    });
    expect(html).to.contain('<tr data-sales="recorded"><td>recorded</td><td>MXN</td><td>3</td><td>348.00</td></tr>');
    expect(html).to.contain('<tr data-cfdi="I-cancelled"><td>I cancelled</td><td>MXN</td><td>1</td><td>100.00</td><td>0.00</td><td>16.00</td>');
    expect(html).to.contain('&#60;i&#62;Tienda&#60;/i&#62;').and.contain('Sale &#60;script&#62;alert(1)&#60;/script&#62;');
    expect(html).not.to.contain('<script').and.not.to.contain('<i>');
    expect(html).to.contain('<input name="merchant" required maxlength="100" placeholder="name, store id, mer_… or RFC" value="mer_1">').and.contain('value="2026-03"');
    expect(page({ books: { merchant: '"><b>', month: '2026-03', problem: 'No merchant "><b>.' } }))
      .to.contain('value="&#34;&#62;&#60;b&#62;"')
      .and.contain('No merchant &#34;&#62;&#60;b&#62;.');
    // Several stores matched (issue #39): each a link to its month, every text escaped.
    const choices = page({
      books: { merchant: 'tienda', month: '2026-03', choices: [{ id: 'mer_1', name: '<i>Tienda</i>', external_merchant_id: 'pos"1', rfc: 'EKU9003173C9' }], more: true },
    });
    expect(choices).to.contain('<li data-store="mer_1"><a href="/admin/status?merchant=mer_1&#38;month=2026-03">&#60;i&#62;Tienda&#60;/i&#62;</a>');
    expect(choices).to.contain('pos&#34;1').and.contain('More stores match');
  });
});
