import { randomUUID } from 'node:crypto';
import { postQr, saleBody, sleep, waitFor, type ChaosContext, type Services } from './chaos-context.js';
import { History, type Event } from './history.js';
import { isErrorObject } from './http-call.js';
import { openLoop } from './open-loop.js';

export interface PostsThroughOutage {
  history: History;
  fired: number;
  posts: Event[];
  /** History times (ms) when the dependency went down and came back. */
  downAt: number;
  upAt: number;
  /** From the dependency's return to the first 201 after it; undefined when none came within 30 s. */
  backMs: number | undefined;
  /** The qr_ids of every 201, and how many of them PostgreSQL holds. */
  created: string[];
  inDb: number;
  /** Answers other than 201, and those of them that are not 503 error objects. */
  refused: Event[];
  bad: Event[];
}

/**
 * The common shape of a dependency outage: POST /v1/qrs at `rate` per second (open loop); after 3 s the
 * dependency goes `down`, `downMs` later it comes `up`; the load goes on until a 201 comes again (or 30 s),
 * then 3 s more. Returns the history and what every outage scenario checks of it.
 */
export async function postsThroughOutage(
  ctx: ChaosContext,
  services: Services,
  rate: number,
  downMs: number,
  dependency: { down(): Promise<void>; up(): Promise<void> },
): Promise<PostsThroughOutage> {
  const history = new History();
  let stopAt = Infinity;
  const load = openLoop(
    rate,
    async () => {
      const key = randomUUID();
      await history.record('post', key, () => postQr(ctx, services.baseUrl, saleBody(ctx), key, 30_000));
    },
    () => history.now() > stopAt,
  );
  try {
    await sleep(3000);
    const downAt = history.now();
    await dependency.down();
    await sleep(downMs);
    await dependency.up();
    const upAt = history.now();
    await waitFor(async () => history.of('post').some((e) => e.at > upAt && e.answer.status === 201), 30_000);
    stopAt = history.now() + 3000;
    const { fired } = await load;
    const posts = history.of('post');
    const created = posts.filter((e) => e.answer.status === 201).map((e) => (e.answer.body as { qr_id: string }).qr_id);
    const inDb = Number((await ctx.db('qr_transactions').whereIn('id', created).count({ n: '*' }).first())?.n ?? 0);
    const refused = posts.filter((e) => e.answer.status !== 201);
    const firstOk = posts.filter((e) => e.at > upAt && e.answer.status === 201).sort((a, b) => a.at - b.at)[0];
    return {
      history,
      fired,
      posts,
      downAt,
      upAt,
      created,
      inDb,
      refused,
      bad: refused.filter((e) => e.answer.status !== 503 || !isErrorObject(e.answer.body)),
      backMs: firstOk ? firstOk.at + firstOk.answer.ms - upAt : undefined,
    };
  } finally {
    stopAt = 0;
  }
}
