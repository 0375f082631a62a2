import { expect } from 'chai';
import type { QueueEvents } from 'bullmq';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { startFakeWebhookReceiver, type FakeWebhookReceiver, type ReceivedWebhook } from '../../fakes/webhook-receiver.js';
import { verifyWebhook } from '../../shared/webhooks/sign-webhook.js';
import { emitEvents } from '../../shared/webhooks/emit-event.js';
import { confirmReviewed, linkQuery, newQrLink, queueEvents, stamped } from '../helpers/buyer.js';
import { harness } from '../helpers/harness.js';
import { runJob } from '../helpers/run-job.js';
import { call, expectError } from '../helpers/http.js';

describe('webhooks: endpoints, signed deliveries from an outbox, retries and the delivery log', function () {
  this.timeout(90_000);
  let receiver: FakeWebhookReceiver;
  let stampEvents: QueueEvents;
  let webhookEvents: QueueEvents;

  before(async () => {
    receiver = await startFakeWebhookReceiver();
    [stampEvents, webhookEvents] = await Promise.all([queueEvents('stamp'), queueEvents('webhooks')]);
  });
  after(async () => {
    await stampEvents.close();
    await webhookEvents.close();
    await receiver.close();
  });

  const asAccount = (account: BootstrapResult) => ({ Authorization: `Bearer ${account.accessToken}` });
  const db = () => harness().deps.db;

  async function endpointFor(account: BootstrapResult, body: Record<string, unknown> = {}): Promise<{ id: string; secret: string }> {
    const res = await call('POST', '/v1/webhooks/endpoints', { headers: asAccount(account), body: { url: receiver.url, ...body } });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body;
  }

  const ofEvent = (type: string, match: (data: Record<string, unknown>) => boolean) => (hook: ReceivedWebhook) => hook.payload.type === type && match(hook.payload.data);
  /** The receiver has answered; the worker records the attempt just after: wait for its job, then read the log. */
  const recorded = async (eventId: string) => {
    for (const { id } of (await db()('webhook_deliveries').where({ event_id: eventId }).select('id')) as { id: string }[]) {
      await (await harness().producers.queue('webhooks').getJob(`webhook.${id}`))?.waitUntilFinished(webhookEvents, 30_000);
    }
  };

  it('registers an endpoint, shows its secret once, and refuses bad URLs and unknown events; another account sees 404', async () => {
    const account = await harness().bootstrap();
    const created = await endpointFor(account, { events: ['invoice.stamped'], description: 'ERP' });
    expect(created.secret).to.match(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const listed = await call('GET', '/v1/webhooks/endpoints', { headers: asAccount(account) });
    expect(listed.body.items).to.have.length(1);
    expect(listed.body.items[0]).to.deep.include({ id: created.id, url: receiver.url, events: ['invoice.stamped'], description: 'ERP' });
    expect(listed.body.items[0]).to.not.have.property('secret');

    const bad = await call('POST', '/v1/webhooks/endpoints', { headers: asAccount(account), body: { url: 'ftp://example.test/x' } });
    expectError(bad, 400, 'validation_failed');
    expect(bad.body.error.details[0].field).to.equal('url');
    expectError(await call('POST', '/v1/webhooks/endpoints', { headers: asAccount(account), body: { url: receiver.url, events: ['qr.eaten'] } }), 400, 'validation_failed');
    expectError(await call('POST', '/v1/webhooks/endpoints', { headers: asAccount(account), body: { url: 'http://user:pw@example.test/' } }), 400, 'validation_failed');

    const other = await harness().bootstrap();
    expectError(await call('GET', `/v1/webhooks/endpoints/${created.id}`, { headers: asAccount(other) }), 404, 'webhook_endpoint_not_found');
    expectError(await call('DELETE', `/v1/webhooks/endpoints/${created.id}`, { headers: asAccount(other) }), 404, 'webhook_endpoint_not_found');
    expect((await call('DELETE', `/v1/webhooks/endpoints/${created.id}`, { headers: asAccount(account) })).status).to.equal(204);
    expect((await call('GET', '/v1/webhooks/endpoints', { headers: asAccount(account) })).body.items).to.deep.equal([]);
  });

  it('announces the scan and the stamp, signed so the receiver can verify them, and logs each delivery', async () => {
    const account = await harness().bootstrap();
    const endpoint = await endpointFor(account);
    const link = await newQrLink(account);
    expect((await call('GET', `/v1/public/qrs/resolve?${linkQuery(link)}`)).status).to.equal(200);
    const scanned = await receiver.accepted(ofEvent('qr.scanned', (d) => d.qr_id === link.qrId));
    expect(scanned.payload.data).to.include({ status: 'SCANNED', store_uid: account.storeUid });
    expect(scanned.headers['webhook-id']).to.equal(scanned.payload.id);
    expect(
      verifyWebhook(
        endpoint.secret,
        { id: scanned.headers['webhook-id']!, timestamp: scanned.headers['webhook-timestamp']!, signature: scanned.headers['webhook-signature']! },
        scanned.body,
      ),
    ).to.equal(true);
    expect(
      verifyWebhook(
        endpoint.secret,
        { id: scanned.headers['webhook-id']!, timestamp: scanned.headers['webhook-timestamp']!, signature: scanned.headers['webhook-signature']! },
        `${scanned.body} `,
      ),
    ).to.equal(false);

    await confirmReviewed(link);
    await stamped(stampEvents, link.qrId);
    const uuid = (await db()('invoices').where({ transaction_id: link.qrId }).first('uuid')).uuid as string;
    const stampedHook = await receiver.accepted(ofEvent('invoice.stamped', (d) => d.qr_id === link.qrId));
    const saleId = (await db()('qr_transactions').where({ id: link.qrId }).first('sale_id')).sale_id as string;
    expect(stampedHook.payload.data).to.include({ uuid, status: 'ACTIVE', total: 302.32, sale_id: saleId, store_uid: account.storeUid });
    await recorded(scanned.payload.id);
    await recorded(stampedHook.payload.id);

    const log = await call('GET', `/v1/webhooks/endpoints/${endpoint.id}/deliveries`, { headers: asAccount(account) });
    expect(log.status).to.equal(200);
    expect(log.body.totalElements).to.equal(2);
    expect(log.body.content.map((d: { event_type: string; status: string; attempts: number }) => [d.event_type, d.status, d.attempts])).to.have.deep.members([
      ['qr.scanned', 'DELIVERED', 1],
      ['invoice.stamped', 'DELIVERED', 1],
    ]);
  });

  it('retries an endpoint that fails and one that times out, with the same event id, and logs the attempts', async () => {
    const account = await harness().bootstrap();
    const endpoint = await endpointFor(account, { events: ['qr.scanned'] });
    receiver.script({ status: 500 }, { kind: 'hang' });
    const link = await newQrLink(account);
    await call('GET', `/v1/public/qrs/resolve?${linkQuery(link)}`);
    const delivered = await receiver.accepted(ofEvent('qr.scanned', (d) => d.qr_id === link.qrId));
    const attempts = receiver.received.filter((hook) => hook.payload.id === delivered.payload.id);
    expect(attempts.map((hook) => hook.answered)).to.deep.equal([500, undefined, 200]);
    await recorded(delivered.payload.id);
    const log = await call('GET', `/v1/webhooks/endpoints/${endpoint.id}/deliveries`, { headers: asAccount(account) });
    expect(log.body.content[0]).to.include({ event_id: delivered.payload.id, status: 'DELIVERED', attempts: 3 });
  });

  it('gives up after the last attempt and says why in the log; other endpoints and subscriptions are unaffected', async () => {
    const account = await harness().bootstrap();
    const failing = await endpointFor(account, { events: ['qr.scanned'] });
    const cancelledOnly = await endpointFor(account, { events: ['invoice.cancelled'] });
    const { webhookAttempts } = harness().deps.config;
    receiver.script(...Array.from({ length: webhookAttempts }, () => ({ status: 503 })));
    const link = await newQrLink(account);
    await call('GET', `/v1/public/qrs/resolve?${linkQuery(link)}`);
    const failed = await new Promise<{ status: string; attempts: number; last_status_code: number; last_error: string }>((resolve) => {
      const look = async (): Promise<void> => {
        const log = await call('GET', `/v1/webhooks/endpoints/${failing.id}/deliveries`, { headers: asAccount(account) });
        const entry = log.body.content[0];
        if (entry?.status === 'FAILED') resolve(entry);
        // The delivery job's retries are the event awaited here; polling the log is how an operator sees them too.
        else setTimeout(() => void look(), 25);
      };
      void look();
    });
    expect(failed).to.include({ status: 'FAILED', attempts: webhookAttempts, last_status_code: 503, last_error: 'answered HTTP 503' });
    expect((await call('GET', `/v1/webhooks/endpoints/${cancelledOnly.id}/deliveries`, { headers: asAccount(account) })).body.totalElements).to.equal(0);
  });

  it('tells a merchant once that its CSD expires within 30 days', async () => {
    const account = await harness().bootstrap();
    await endpointFor(account, { events: ['csd.expiring'] });
    const merchantId = (await db()('merchants').where({ account_id: account.accountId }).first('id')).id as string;
    await db()('merchant_csds')
      .where({ merchant_id: merchantId })
      .update({ valid_to: db().raw(`now() + interval '10 days 1 hour'`) });
    const run = () => runJob('announce-expiring-csds', {}, webhookEvents);
    expect((await run()).announced).to.be.at.least(1);
    const hook = await receiver.accepted((h) => h.payload.type === 'csd.expiring' && h.payload.data.merchant_id === merchantId);
    expect(hook.payload.data).to.include({ days_left: 10 });
    await run();
    const events = await db()('webhook_events').where({ account_id: account.accountId, type: 'csd.expiring' });
    expect(events).to.have.length(1);
  });

  it('writes events only with the state change: a rolled-back transaction leaves none; a delivery whose job was lost is sent by the dispatcher', async () => {
    const account = await harness().bootstrap();
    await endpointFor(account, { events: ['csd.expiring'] });
    const merchantId = (await db()('merchants').where({ account_id: account.accountId }).first('id')).id as string;
    await db()
      .transaction(async (trx) => {
        await emitEvents(trx, 'csd.expiring', [{ merchantId, data: { rolled: 'back' } }]);
        throw new Error('the state change failed');
      })
      .catch(() => undefined);
    expect(await db()('webhook_events').where({ account_id: account.accountId })).to.deep.equal([]);

    // Committed, then the process died before any job was queued: the dispatcher's periodic run finds it.
    await emitEvents(db(), 'csd.expiring', [{ merchantId, data: { merchant_id: merchantId, days_left: 30 } }]);
    const hook = await receiver.accepted((h) => h.payload.type === 'csd.expiring' && h.payload.data.merchant_id === merchantId);
    expect(hook.payload.data).to.deep.equal({ merchant_id: merchantId, days_left: 30 });

    // A delivery row without its job (Redis flushed): queued again once it is a minute old.
    const event = await db()('webhook_events').where({ account_id: account.accountId }).first('id');
    const delivery = await db()('webhook_deliveries').where({ event_id: event.id }).first('id');
    // The receiver has answered; the job may still be recording that. Let it finish, then lose it.
    const job = await harness().producers.queue('webhooks').getJob(`webhook.${delivery.id}`);
    await job!.waitUntilFinished(webhookEvents, 30_000);
    await job!.remove();
    await db()('webhook_deliveries')
      .where({ id: delivery.id })
      .update({ status: 'PENDING', attempts: 0, created_at: db().raw(`now() - interval '5 minutes'`) });
    const before = receiver.received.filter((h) => h.payload.id === event.id).length;
    await new Promise<void>((resolve) => {
      const look = async (): Promise<void> => {
        if (receiver.received.filter((h) => h.payload.id === event.id).length > before) resolve();
        else setTimeout(() => void look(), 25);
      };
      void look();
    });
    // The receiver has answered; the new job records it.
    await (await harness().producers.queue('webhooks').getJob(`webhook.${delivery.id}`))!.waitUntilFinished(webhookEvents, 30_000);
    expect((await db()('webhook_deliveries').where({ event_id: event.id }).first('status')).status).to.equal('DELIVERED');
  });
});
