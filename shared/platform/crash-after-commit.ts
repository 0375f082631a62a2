import { writeSync } from 'node:fs';

/**
 * The fault of issue #8's "kill -9 between commit and enqueue": with CRASH_AFTER_COMMIT = p (0–1, never
 * in production), each call dies by SIGKILL with probability p, at the worst moment: after a transaction
 * committed and before the job that follows it is queued. `npm run chaos -- commit-kill` sets it and
 * checks that the PostgreSQL-driven sweeps finish every such change. Off (p = 0), a call costs a compare.
 */
let probability = 0;

export function armCrashAfterCommit(p: number): void {
  probability = p;
}

/** Where a committed change is followed by its job; the name goes to stderr so a run can count them. */
export type CommitPoint = 'qr-created' | 'qr-confirmed' | 'invoice-stamped';

export function crashAfterCommit(point: CommitPoint): void {
  if (probability === 0 || Math.random() >= probability) return;
  writeSync(2, `crash-after-commit ${point}\n`);
  process.kill(process.pid, 'SIGKILL');
}
