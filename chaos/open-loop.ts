import { sleep } from './chaos-context.js';

/**
 * Open-loop load: starts `fire()` `rate` times a second, whatever the answers take (as many POS terminals
 * do), with at most `maxInFlight` outstanding; runs until `stop()` says so. Resolves when all settled.
 */
export async function openLoop(rate: number, fire: () => Promise<unknown>, stop: () => boolean, maxInFlight = 1000): Promise<{ fired: number; skipped: number }> {
  const inFlight = new Set<Promise<unknown>>();
  const interval = 1000 / rate;
  const began = performance.now();
  let fired = 0;
  let skipped = 0;
  while (!stop()) {
    const due = Math.floor((performance.now() - began) / interval) + 1;
    while (fired + skipped < due) {
      if (inFlight.size >= maxInFlight) {
        skipped++;
        continue;
      }
      fired++;
      const p = fire().finally(() => inFlight.delete(p));
      inFlight.add(p);
    }
    await sleep(Math.max(1, interval / 2));
  }
  await Promise.allSettled([...inFlight]);
  return { fired, skipped };
}
