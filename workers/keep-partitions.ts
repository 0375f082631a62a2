import type { Config } from '../shared/platform/config.js';
import type { Db } from '../shared/platform/db.js';
import { createDailyPartitions, dropDailyPartitionsBefore, utcDay } from '../shared/platform/daily-partitions.js';

/** Days of partitions kept ready ahead: a week of this job not running before an INSERT finds no partition. */
export const PARTITIONS_AHEAD_DAYS = 7;

export type RetentionConfig = Pick<Config, 'webhookDeliveryRetentionDays' | 'webhookEventRetentionDays' | 'idempotencyRetentionDays'>;

/** The time-partitioned tables and how many days each keeps (docs/data-growth.md). */
export function partitionedTables(config: Readonly<RetentionConfig>): { table: string; retentionDays: number }[] {
  return [
    { table: 'webhook_deliveries', retentionDays: config.webhookDeliveryRetentionDays },
    { table: 'webhook_events', retentionDays: config.webhookEventRetentionDays },
    { table: 'idempotency_keys', retentionDays: config.idempotencyRetentionDays },
  ];
}

/**
 * keep-partitions (hourly): creates each partitioned table's days up to PARTITIONS_AHEAD_DAYS ahead and
 * drops the days past its retention (DETACH and DROP of whole partitions, no DELETE). Idempotent: a second
 * run, or two workers at once, change nothing (CREATE … IF NOT EXISTS; a partition already dropped is no
 * longer listed).
 */
export async function keepPartitionsJob(db: Db, config: Readonly<RetentionConfig>, now: Date = new Date()): Promise<{ created: number; dropped: number }> {
  let created = 0;
  let dropped = 0;
  for (const { table, retentionDays } of partitionedTables(config)) {
    created += (await createDailyPartitions(db, table, utcDay(now), utcDay(now, PARTITIONS_AHEAD_DAYS))).length;
    dropped += (await dropDailyPartitionsBefore(db, table, utcDay(now, -retentionDays))).length;
  }
  return { created, dropped };
}
