import { expect } from 'chai';
import type { Server } from 'node:http';
import { createApp } from '../../api/app.js';
import { linkQuery, newQrLink } from '../helpers/buyer.js';
import { harness } from '../helpers/harness.js';

describe('rate limits on the buyer routes', () => {
  let server: Server;
  let base: string;
  before(async () => {
    // An API process with small limits, beside the harness's (same PostgreSQL and Redis). The per-IP counter
    // (rl:ip:127.0.0.1) is shared by every suite running on this machine's Redis: out of reach here.
    const deps = { ...harness().deps, config: { ...harness().deps.config, publicRatePerToken: 3, publicRatePerIp: 10_000_000 } };
    server = createApp(deps).listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('answers 429 with Retry-After past the per-QR limit, and other QRs are not affected', async () => {
    const account = await harness().bootstrap();
    const [link, other] = [await newQrLink(account), await newQrLink(account)];
    const statuses: number[] = [];
    let limited: Response | undefined;
    for (let i = 0; i < 8; i++) {
      const res = await fetch(`${base}/v1/public/qrs/status?${linkQuery(link)}`);
      statuses.push(res.status);
      if (res.status === 429) limited = res;
    }
    // A minute boundary may fall inside the loop and reset the window once.
    expect(statuses.filter((s) => s === 429).length).to.be.greaterThanOrEqual(1);
    // A sliding window weighs the last two minutes: the wait can be up to two of them.
    expect(Number(limited!.headers.get('retry-after'))).to.be.within(1, 120);
    expect(((await limited!.json()) as { error: { code: string } }).error.code).to.equal('rate_limited');
    expect((await fetch(`${base}/v1/public/qrs/status?${linkQuery(other)}`)).status).to.equal(200);
  });
});
