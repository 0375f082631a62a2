import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { BootstrapResult } from '../../../cli/bootstrap.js';
import { inboxKey } from '../../../shared/platform/job-inbox.js';
import { openRuntime } from '../../../shared/platform/runtime.js';
import { harness } from '../../helpers/harness.js';
import { qrBody, qrHeaders } from '../../helpers/qr-body.js';
import { startTlsRedis, type TlsRedis } from '../../helpers/redis-tls-server.js';
import { configWith, startStackOn, type StackOnRedis } from '../../helpers/stack-on-redis.js';

describe('issue #30: Redis over TLS (rediss:// with REDIS_TLS_CA_FILE)', function () {
  this.timeout(60_000);
  let server: TlsRedis;
  let stack: StackOnRedis | undefined;
  let account: BootstrapResult;

  before(async () => {
    server = await startTlsRedis();
    account = await harness().bootstrap();
  });

  after(async () => {
    await stack?.close();
    await server?.stop();
  });

  async function postQr(baseUrl: string, key: string, body: unknown) {
    const res = await fetch(`${baseUrl}/v1/qrs`, {
      method: 'POST',
      headers: { ...qrHeaders(account, key), 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { qr_id: string; qr_image_png_base64?: string } };
  }

  it('an API and its workers on a TLS-only redis-server: a QR is created and rendered, its replay answers the same, the rate limiter and the idempotency cache write there', async () => {
    const cfg = configWith({ REDIS_URL: server.url, REDIS_TLS_CA_FILE: server.caFile, QUEUE_PREFIX: `${process.env.QUEUE_PREFIX ?? 'aftest'}tls` });
    stack = await startStackOn(cfg);
    const key = randomUUID();
    const body = qrBody(account.storeUid);
    const first = await postQr(stack.baseUrl, key, body);
    expect(first.status).to.equal(201);
    expect(await harness().deps.db('qr_transactions').where({ id: first.body.qr_id })).to.have.length(1);
    // The worker rendered the image: it came back to the API's inbox on the TLS server (issue #40: a stream).
    expect(await stack.redis.type(inboxKey(cfg.queuePrefix, stack.producers.inbox.id))).to.equal('stream');
    const replay = await postQr(stack.baseUrl, key, body);
    expect(replay).to.deep.equal(first);
    expect(await stack.redis.keys(`${cfg.queuePrefix}:rl:*`)).to.not.be.empty;
    expect(await stack.redis.keys(`${cfg.queuePrefix}:idem:*`)).to.not.be.empty;
  });

  it('with a CA that did not sign the server certificate, startup stops with one line naming REDIS_TLS_CA_FILE', async () => {
    const cfg = configWith({ REDIS_URL: server.url, REDIS_TLS_CA_FILE: server.otherCaFile });
    let error: unknown;
    await openRuntime(cfg, { migrate: false }).then(
      () => expect.fail('startup went on with an untrusted Redis certificate'),
      (err: unknown) => (error = err),
    );
    expect((error as Error).name).to.equal('ServiceUnreachable');
    expect((error as Error).message).to.match(
      /^Redis is not reachable at 127\.0\.0\.1:\d+ \(REDIS_URL\): .+\. The TLS handshake failed: REDIS_TLS_CA_FILE \(.*other-ca\.crt\) must hold the CA/,
    );
  });
});
