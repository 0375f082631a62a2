import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { getQr, postQr, saleBody, sleep, startServices, type ChaosContext } from '../chaos-context.js';
import { History } from '../history.js';
import { answerLabel, tally } from '../http-call.js';
import { check, type ScenarioResult } from '../scenario-result.js';

export interface KillApiOptions {
  posts: number;
  /** SIGKILLs of the API, spread over the run (one each time another posts/(kills+1) keys got their answer). */
  kills: number;
  /** Clients posting at once. */
  clients?: number;
}

/**
 * kill -9 the API while clients post new QRs; each client retries its request with the same
 * Idempotency-Key and body until it gets a 201 (the API is started again after each kill). Afterwards:
 * one transaction per key, no key without one, every 201 of a key the same body, equal to a later GET.
 */
export async function killApiDuringPosts(ctx: ChaosContext, options: KillApiOptions): Promise<ScenarioResult> {
  const started = performance.now();
  const services = await startServices(ctx, 'killapi');
  const history = new History();
  const keys = Array.from({ length: options.posts }, () => ({ key: randomUUID(), body: saleBody(ctx) }));
  let next = 0;
  let answered = 0;
  let kills = 0;
  const restarts: number[] = [];
  const giveUpAt = Date.now() + 180_000;
  const client = async () => {
    for (;;) {
      const item = keys[next++];
      if (!item) return;
      // Blind retries, as a POS backend does: same key, same body, until an answer that is not an outage.
      for (;;) {
        const answer = await history.record('post', item.key, () => postQr(ctx, services.baseUrl, item.body, item.key, 20_000));
        if (answer.status !== 0 && answer.status < 500) break;
        if (Date.now() > giveUpAt) return;
        await sleep(100);
      }
      answered++;
    }
  };
  const clients = Array.from({ length: options.clients ?? 8 }, client);
  const killer = (async () => {
    for (let k = 1; k <= options.kills; k++) {
      const at = Math.floor((options.posts * k) / (options.kills + 1));
      while (answered < at) await sleep(5);
      await services.api.kill();
      kills++;
      const restart = performance.now();
      await services.api.start();
      restarts.push(performance.now() - restart);
    }
  })();
  try {
    await Promise.all([...clients, killer]);

    const posts = history.of('post');
    const rows = (await ctx
      .db('qr_transactions')
      .where({ merchant_id: ctx.account.merchantId })
      .whereIn(
        'idempotency_key',
        keys.map((k) => k.key),
      )
      .select('id', 'idempotency_key')) as { id: string; idempotency_key: string }[];
    const rowsByKey = new Map<string, string[]>();
    for (const r of rows) rowsByKey.set(r.idempotency_key, [...(rowsByKey.get(r.idempotency_key) ?? []), r.id]);
    const createdByKey = new Map<string, unknown[]>();
    for (const e of posts) if (e.answer.status === 201) createdByKey.set(e.key, [...(createdByKey.get(e.key) ?? []), e.answer.body]);
    const withoutAnswer = keys.filter((k) => !createdByKey.has(k.key));
    const oneRowPerKey = keys.every((k) => rowsByKey.get(k.key)?.length === 1);
    const sameBodies = [...createdByKey.values()].every((bodies) => bodies.every((b) => isDeepStrictEqual(b, bodies[0])));
    const idMatches = [...createdByKey.entries()].every(([key, bodies]) => (bodies[0] as { qr_id: string }).qr_id === rowsByKey.get(key)?.[0]);
    let getMismatches = 0;
    let firstMismatch = '';
    for (const [, bodies] of createdByKey) {
      const body = bodies[0] as Record<string, unknown>;
      const got = await history.record('get', String(body.qr_id), () => getQr(ctx, services.baseUrl, String(body.qr_id)));
      if (got.status !== 200 || !isDeepStrictEqual(got.body, body)) {
        getMismatches++;
        if (!firstMismatch) {
          const g = (got.body ?? {}) as Record<string, unknown>;
          firstMismatch = `status ${got.status}; fields differing: ${[...new Set([...Object.keys(body), ...Object.keys(g)])].filter((f) => !isDeepStrictEqual(body[f], g[f])).join(', ')}`;
        }
      }
    }
    const serverErrors = posts.filter((e) => e.answer.status >= 500 && e.answer.status !== 503);
    return {
      scenario: `kill -9 the API during ${options.posts} POST /v1/qrs`,
      counts: `${kills} kills, ${posts.length} attempts for ${keys.length} keys (${tally(posts.map((e) => answerLabel(e.answer)))}), ${posts.filter((e) => e.answer.headers?.get('idempotent-replayed') === 'true').length} 201s were replays of a write whose answer the kill cut`,
      checks: [
        check('every key answered 201', withoutAnswer.length === 0, `${keys.length - withoutAnswer.length}/${keys.length}`),
        check('one transaction per key, none stuck', oneRowPerKey && rows.length === keys.length, `${rows.length} rows for ${keys.length} keys`),
        check('every 201 of a key the same body and qr_id', sameBodies && idMatches),
        check('every 201 body equal to a later GET', getMismatches === 0, getMismatches ? `${getMismatches} differ: ${firstMismatch}` : `${createdByKey.size} compared`),
        check('no 5xx but 503', serverErrors.length === 0, tally(serverErrors.map((e) => answerLabel(e.answer)))),
        check('no process crashed', services.crashes().length === 0, services.crashes().join('; ')),
      ],
      timings: `API restart ${restarts.length ? Math.round(Math.max(...restarts)) : 0} ms at most (to 'api listening')`,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await Promise.allSettled([...clients, killer]);
    await services.stop();
  }
}
