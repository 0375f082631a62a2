import type { Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { pino } from 'pino';
import { createApp } from '../../api/app.js';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { INBOX_TTL_S, inboxKey, legacyInboxKey } from '../../shared/platform/job-inbox.js';
import { replyTtlSeconds } from '../../shared/platform/jobs.js';
import { createProducers, type Producers } from '../../shared/platform/queues.js';
import { decodeQrPng } from '../helpers/decode-qr.js';
import { harness } from '../helpers/harness.js';
import { qrBody, qrHeaders } from '../helpers/qr-body.js';

/** Another API process on the harness's queues (worked by the harness's workers): its own producers, so its own inbox. */
async function secondApi(): Promise<{ url: string; producers: Producers; server: Server }> {
  const producers = await createProducers(harness().redis, harness().deps.config);
  const server = createApp({ ...harness().deps, producers, logger: pino({ level: 'silent' }) }).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, producers, server };
}

describe('render results go to the API process that waits for them alone (issue #30)', function () {
  this.timeout(60_000);
  let account: BootstrapResult;
  before(async () => {
    account = await harness().bootstrap();
  });

  it('two API processes under one burst: every answer carries the image of its own link, and no inbox is left with replies', async () => {
    const other = await secondApi();
    try {
      const post = async (url: string) => {
        const res = await fetch(`${url}/v1/qrs`, {
          method: 'POST',
          headers: { ...qrHeaders(account), 'content-type': 'application/json' },
          body: JSON.stringify(qrBody(account.storeUid)),
        });
        return { status: res.status, body: (await res.json()) as { qr_base64: string; qr_content: string } };
      };
      const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => post(i % 2 === 0 ? harness().baseUrl : other.url)));
      expect(answers.map((a) => a.status)).to.deep.equal(Array(40).fill(201));
      for (const a of answers) expect(await decodeQrPng(Buffer.from(a.body.qr_base64.replace(/^data:image\/png;base64,/, ''), 'base64'))).to.equal(a.body.qr_content);
      // Each process has its own inbox, a stream that lives while its process does (issue #40), and no reply went to a list.
      const prefix = harness().deps.config.queuePrefix;
      expect(harness().producers.inbox.id).to.not.equal(other.producers.inbox.id);
      for (const inbox of [harness().producers.inbox.id, other.producers.inbox.id]) {
        expect(await harness().redis.type(inboxKey(prefix, inbox))).to.equal('stream');
        const ttl = await harness().redis.ttl(inboxKey(prefix, inbox));
        expect(ttl).to.be.above(0);
        expect(ttl).to.be.at.most(INBOX_TTL_S);
        expect(await harness().redis.exists(legacyInboxKey(prefix, inbox))).to.equal(0);
      }
    } finally {
      other.server.close();
      await other.producers.close();
    }
  });

  it('the inbox of an API process that is gone is removed, and a late reply to it leaves only a list that expires by itself', async () => {
    const gone = await secondApi();
    await gone.producers.inbox.ready();
    const prefix = harness().deps.config.queuePrefix;
    expect(await harness().redis.exists(inboxKey(prefix, gone.producers.inbox.id))).to.equal(1);
    gone.server.close();
    await gone.producers.close();
    expect(await harness().redis.exists(inboxKey(prefix, gone.producers.inbox.id))).to.equal(0);
    // A worker finishing a job for the process after it stopped: no stream to add to (NOMKSTREAM), so the reply
    // goes to the list an API process from before issue #40 would read, which expires.
    await harness().producers.reply(gone.producers.inbox.id, { jobId: `render.${randomUUID()}`, result: { pngs: [] } });
    expect(await harness().redis.exists(inboxKey(prefix, gone.producers.inbox.id))).to.equal(0);
    const key = legacyInboxKey(prefix, gone.producers.inbox.id);
    expect(await harness().redis.llen(key)).to.equal(1);
    const ttl = await harness().redis.ttl(key);
    expect(ttl).to.be.above(0);
    expect(ttl).to.be.at.most(replyTtlSeconds(harness().deps.config));
    await harness().redis.del(key);
  });
});
