import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { encodeGray1Png } from '../../shared/domain/qr-code/png-gray1.js';
import { harness } from '../helpers/harness.js';
import { callForm, type Answer } from '../helpers/http.js';

const file = (path: string) => readFileSync(new URL(path, import.meta.url));
const CER = file('../../data/sat/test-csd/EKU9003173C9.cer');

/** A real, valid 10,000 × 10,000 (100 MP) PNG: 12.5 MB of pixels deflated to a few KB. */
function pngBomb(): Buffer {
  return encodeGray1Png(10_000, 10_000, Buffer.alloc((1 + 10_000 / 8) * 10_000)); // a filter byte per row
}

describe('hostile uploads: pixel bombs, non-images and keys that are not keys are refused fast', function () {
  this.timeout(120_000);
  let account: BootstrapResult;
  before(async () => {
    account = await harness().bootstrap();
  });

  it('each answers 4xx within the bound, with bounded memory growth', async () => {
    const bomb = pngBomb();
    expect(bomb.length).to.be.below(100_000);
    const logo = (name: string, data: Buffer) => () =>
      callForm('POST', `/v1/qrs/merchants/${account.merchantId}/logos`, account.accessToken, { appLogo: { data, fileName: name } });
    const csdKey = (data: Buffer) => () =>
      callForm('POST', `/v1/qrs/merchants/${account.merchantId}/invoice-mode`, account.accessToken, {
        'csdDataRequest.cerFile': { data: CER, fileName: 'csd.cer' },
        'csdDataRequest.keyFile': { data, fileName: 'csd.key' },
        'csdDataRequest.password': '12345678a',
      });
    const cases: [string, () => Promise<Answer>][] = [
      ['100 MP PNG bomb', logo('bomb.png', bomb)],
      ['PDF as logo', logo('x.png', Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\n'))],
      ['random bytes as logo', logo('x.png', randomBytes(50_000))],
      ['truncated PNG', logo('x.png', bomb.subarray(0, 200))],
      ['HTML as logo', logo('x.png', Buffer.from('<html><script>alert(1)</script></html>'))],
      ['empty logo', logo('x.png', Buffer.alloc(0))],
      ['random bytes as .key', csdKey(randomBytes(1218))],
      ['text as .key', csdKey(Buffer.from('-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n'))],
      ['the certificate as .key', csdKey(CER)],
      ['a PNG as .key', csdKey(bomb)],
      ['DER garbage as .key', csdKey(Buffer.concat([Buffer.from([0x30, 0x82, 0xff, 0xff]), randomBytes(600)]))],
    ];
    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    const figures: string[] = [];
    let slowest = 0;
    for (const [name, send] of cases) {
      const started = performance.now();
      const res = await send();
      const ms = performance.now() - started;
      slowest = Math.max(slowest, ms);
      figures.push(`${name}: ${res.status} ${res.body?.error?.code ?? ''} ${ms.toFixed(0)} ms`);
      expect(res.status, `${name}: ${JSON.stringify(res.body)}`).to.be.within(400, 499);
      expect(res.body.error.request_id, name).to.be.a('string');
      // Target: under 1 s; asserted with room for a slow, shared CI machine (the figure is printed).
      expect(ms, name).to.be.below(5000);
      if (name === '100 MP PNG bomb') expect(res.body.error.details[0].code).to.equal('image_too_large');
    }
    global.gc?.();
    const growthMb = (process.memoryUsage().rss - rssBefore) / 1e6;
    console.log(`      ${figures.join('\n      ')}\n      slowest ${slowest.toFixed(0)} ms, RSS growth ${growthMb.toFixed(1)} MB (API and workers share this process)`);
    expect(growthMb).to.be.below(100);
    expect(await harness().deps.db('merchant_csds').where({ merchant_id: account.merchantId }).first('key_file_name')).to.not.deep.equal({ key_file_name: 'csd.key' });
  });
});
