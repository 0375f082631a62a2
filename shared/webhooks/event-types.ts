/** Every event a merchant can subscribe to; some are emitted by features still to come (issue #7). */
export const WEBHOOK_EVENT_TYPES = [
  'qr.scanned',
  'qr.expired',
  'invoice.stamped',
  'invoice.failed',
  'invoice.stalled',
  'invoice.cancelled',
  'invoice.cancellation_status_updated',
  'credit_note.stamped',
  'payment_complement.stamped',
  'global_invoice.stamped',
  'csd.expiring',
  'export.ready',
  'export.failed',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** What a receiver gets: `id` is the deduplication key (also the `webhook-id` header). */
export interface WebhookEventPayload {
  id: string;
  type: WebhookEventType;
  created_at: string;
  data: Record<string, unknown>;
}
