/**
 * How QR expiry is scheduled (issue #19): not one delayed job per QR (about 1 KB of Redis each, 1 GB per
 * million pending QRs) but one delayed job per second in which some QR falls due, and only for the near
 * future: a planner looks at PostgreSQL every EXPIRY_PLAN_EVERY_MS and schedules the buckets of the next
 * EXPIRY_PLAN_WINDOW_MS; a QR created already inside that window schedules its own bucket. Each bucket
 * job expires every QR due by then. What grows in Redis does not depend on how many QRs are pending.
 */
export const EXPIRY_PLAN_WINDOW_MS = 120_000;
export const EXPIRY_PLAN_EVERY_MS = 60_000;

/** The epoch second whose bucket expires a QR due at `expiresAt`: the first second not before it. */
export function expiryBucket(expiresAt: Date): number {
  return Math.ceil(expiresAt.getTime() / 1000);
}

/** Whether a QR due at `expiresAt` falls inside the window the planner may already have scheduled. */
export function withinPlanWindow(expiresAt: Date, now: Date): boolean {
  return expiresAt.getTime() - now.getTime() <= EXPIRY_PLAN_WINDOW_MS;
}
