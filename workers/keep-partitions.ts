import type { Config } from '../shared/platform/config.js';
import type { Db } from '../shared/platform/db.js';
import type { Logger } from '../shared/platform/logger.js';
import { createDailyPartitions, dropDailyPartitionsBefore, utcDay } from '../shared/platform/daily-partitions.js';
import { utcMonth } from '../shared/platform/monthly-partitions.js';
import { createSaleMonths, dropSaleMonth, expiredSaleMonths, forgetDroppedSales, youngCfdiOf } from '../shared/repositories/sale-months.js';

/** Days of partitions kept ready ahead: a week of this job not running before an INSERT finds no partition. */
export const PARTITIONS_AHEAD_DAYS = 7;
/** Months of sales' partitions kept ready after the current one. */
export const SALE_MONTHS_AHEAD = 2;

export type RetentionConfig = Pick<Config, 'webhookDeliveryRetentionDays' | 'webhookEventRetentionDays' | 'idempotencyRetentionDays' | 'qrRetentionMonths'>;

/**
 * The day-partitioned tables, how many days each keeps and how many days a new partition holds
 * (docs/data-growth.md). idempotency_keys by the week: a claim looks for its key in every partition, and 43
 * daily ones made PostgreSQL's CPU per sale 3.3 times that of 8 (issue #40).
 */
export function partitionedTables(config: Readonly<RetentionConfig>): { table: string; retentionDays: number; spanDays: number }[] {
  return [
    { table: 'webhook_deliveries', retentionDays: config.webhookDeliveryRetentionDays, spanDays: 1 },
    { table: 'webhook_events', retentionDays: config.webhookEventRetentionDays, spanDays: 1 },
    { table: 'idempotency_keys', retentionDays: config.idempotencyRetentionDays, spanDays: 7 },
  ];
}

export interface KeepPartitionsResult {
  /** Days made and dropped. */
  created: number;
  dropped: number;
  /** Months of sales: partitions made (the sales' and their lines'), months dropped, and months past QR_RETENTION_MONTHS kept for a CFDI inside its five years. */
  saleMonths: { created: number; dropped: number; held: number };
}

/**
 * keep-partitions (hourly): creates each partitioned table's days (months for the sales) ahead and drops the
 * ones past their retention (DETACH and DROP of whole partitions, no DELETE of their rows; the narrow side
 * tables of the sales lose the rows of sales no partition holds, in batches). A month of sales
 * with a CFDI inside its five years is kept, whatever the setting says, and logged (it stays on the
 * needs-attention list, kind `sale-month`, until it can go). Idempotent: a second run, or two workers at once,
 * change nothing (CREATE … IF NOT EXISTS; a partition already dropped is no longer listed).
 */
export async function keepPartitionsJob(db: Db, config: Readonly<RetentionConfig>, now: Date = new Date(), logger?: Logger): Promise<KeepPartitionsResult> {
  let created = 0;
  let dropped = 0;
  const saleMonths = { created: 0, dropped: 0, held: 0 };
  for (const { table, retentionDays, spanDays } of partitionedTables(config)) {
    created += (await createDailyPartitions(db, table, utcDay(now), utcDay(now, PARTITIONS_AHEAD_DAYS), spanDays)).length;
    dropped += (await dropDailyPartitionsBefore(db, table, utcDay(now, -retentionDays))).length;
  }
  saleMonths.created = (await createSaleMonths(db, utcMonth(now), utcMonth(now, SALE_MONTHS_AHEAD))).length;
  for (const month of await expiredSaleMonths(db, config.qrRetentionMonths, now)) {
    const cfdi = await youngCfdiOf(db, month, now);
    if (cfdi) {
      saleMonths.held += 1;
      logger?.warn({ partition: month.name, invoice_id: cfdi }, 'sales past QR_RETENTION_MONTHS kept: a CFDI of theirs is inside its five years');
      continue;
    }
    await dropSaleMonth(db, month);
    saleMonths.dropped += 1;
  }
  await forgetDroppedSales(db);
  return { created, dropped, saleMonths };
}
