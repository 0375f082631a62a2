import { expect } from 'chai';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { QUEUES } from '../../shared/platform/jobs.js';
import { queueEvents } from '../helpers/buyer.js';
import { decodeQrPng } from '../helpers/decode-qr.js';
import { harness } from '../helpers/harness.js';
import { postQr, qrBody } from '../helpers/qr-body.js';

describe('POST /v1/qrs renders the QRs of requests arriving together in shared jobs (issue #19)', function () {
  this.timeout(60_000);
  let account: BootstrapResult;
  before(async () => {
    account = await harness().bootstrap();
  });

  it('40 requests at once: fewer render jobs than QRs, and every answer carries the image of its own link', async () => {
    const events = await queueEvents(QUEUES.render);
    const batches: number[] = [];
    const onCompleted = ({ returnvalue }: { returnvalue: unknown }) => {
      // The images went to the API's inbox; the job's result says how many.
      const result = (typeof returnvalue === 'string' ? JSON.parse(returnvalue) : returnvalue) as { replied: number };
      batches.push(result.replied);
    };
    events.on('completed', onCompleted);
    try {
      const answers = await Promise.all(Array.from({ length: 40 }, () => postQr(account, qrBody(account.storeUid))));
      expect(answers.map((a) => a.status)).to.deep.equal(Array(40).fill(201));
      for (const a of answers) {
        const png = Buffer.from((a.body.qr_base64 as string).replace(/^data:image\/png;base64,/, ''), 'base64');
        expect(await decodeQrPng(png)).to.equal(a.body.qr_content);
      }
      // The completion events of this burst may trail the answers by a moment.
      while (batches.reduce((sum, n) => sum + n, 0) < 40) await new Promise((resolve) => events.once('completed', resolve));
      expect(batches.length).to.be.below(40);
      expect(Math.max(...batches)).to.be.above(1);
    } finally {
      events.off('completed', onCompleted);
      await events.close();
    }
  });
});
