/**
 * The one list of queues, job names and payload types. Payloads carry ids and short values,
 * never images, XML, certificates or passwords.
 */
export const QUEUES = {
  render: 'render',
  expiry: 'expiry',
  csfSync: 'csf-sync',
  stamp: 'stamp',
  pdf: 'pdf',
  email: 'email',
  cancel: 'cancel',
  webhooks: 'webhooks',
  globalInvoice: 'global-invoice',
} as const;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

export interface RenderQrPayload {
  qrId: string;
  /** The deep link to encode: printed on paper anyway, so not a secret. */
  content: string;
}
/** Base64 PNG; the API stores it with the transaction in one database transaction. */
export type RenderQrResult = { png: string };

/** One expiry bucket: every QR due by `dueAt` (epoch seconds) is expired (shared/qr/expiry-buckets.ts). */
export interface ExpireDuePayload {
  dueAt: number;
}

export type SweepExpiredPayload = Record<string, never>;

export interface SyncIssuerPayload {
  issuerId: string;
}
export type SyncIssuerResult = { businessName: string; taxRegimeCode: string; zip: string };

export interface InvoicePayload {
  invoiceId: string;
}

export interface CancelInvoicePayload {
  cancellationId: string;
}
/** `qrId` and the PAC's refusal `code` are for the job's log line (workers/log-job-outcomes.ts). */
export type CancelInvoiceResult = { outcome: 'cancelled' | 'pending' | 'refused' | 'not-requested'; uuid?: string; qrId?: string | null; code?: string };

export interface DeliverWebhookPayload {
  deliveryId: string;
}

/** `qrId` and the refusal's `code` are for the job's log line (workers/log-job-outcomes.ts). */
export type StampInvoiceResult = { outcome: 'stamped' | 'already-stamped' | 'refused' | 'not-stamping'; uuid?: string; qrId?: string | null; code?: string };

export interface JobTypes {
  'render-qr': { queue: typeof QUEUES.render; data: RenderQrPayload; result: RenderQrResult };
  'expire-due-qrs': { queue: typeof QUEUES.expiry; data: ExpireDuePayload; result: { expired: number } };
  'plan-expiries': { queue: typeof QUEUES.expiry; data: Record<string, never>; result: { buckets: number } };
  'sweep-expired-qrs': { queue: typeof QUEUES.expiry; data: SweepExpiredPayload; result: { expired: number } };
  'sync-issuer': { queue: typeof QUEUES.csfSync; data: SyncIssuerPayload; result: SyncIssuerResult };
  'sweep-lost-syncs': { queue: typeof QUEUES.csfSync; data: Record<string, never>; result: { failed: number } };
  'stamp-invoice': { queue: typeof QUEUES.stamp; data: InvoicePayload; result: StampInvoiceResult };
  'sweep-stamping': { queue: typeof QUEUES.stamp; data: Record<string, never>; result: { requeued: number } };
  'render-invoice-pdf': { queue: typeof QUEUES.pdf; data: InvoicePayload; result: { pdfFileKey: string } };
  'sweep-invoice-follow-ups': { queue: typeof QUEUES.pdf; data: Record<string, never>; result: { pdfs: number; emails: number } };
  'email-invoice': { queue: typeof QUEUES.email; data: InvoicePayload & { to?: string }; result: { messageId: string } };
  'email-cancellation': { queue: typeof QUEUES.email; data: InvoicePayload; result: { outcome: 'sent' | 'no-address' } };
  'cancel-invoice': { queue: typeof QUEUES.cancel; data: CancelInvoicePayload; result: CancelInvoiceResult };
  'poll-cancellations': { queue: typeof QUEUES.cancel; data: Record<string, never>; result: { resolved: number; requeued: number } };
  'dispatch-webhooks': { queue: typeof QUEUES.webhooks; data: Record<string, never>; result: { queued: number } };
  'deliver-webhook': { queue: typeof QUEUES.webhooks; data: DeliverWebhookPayload; result: { status: 'delivered' | 'skipped' } };
  'issue-global-invoices': { queue: typeof QUEUES.globalInvoice; data: Record<string, never>; result: { invoices: number } };
  'announce-expiring-csds': { queue: typeof QUEUES.webhooks; data: Record<string, never>; result: { announced: number } };
}

export type JobName = keyof JobTypes;

/** Each job's queue, as JobTypes declares it: producers add by job name, workers check it. */
export const JOB_QUEUE: { [N in JobName]: JobTypes[N]['queue'] } = {
  'render-qr': QUEUES.render,
  'expire-due-qrs': QUEUES.expiry,
  'plan-expiries': QUEUES.expiry,
  'sweep-expired-qrs': QUEUES.expiry,
  'sync-issuer': QUEUES.csfSync,
  'sweep-lost-syncs': QUEUES.csfSync,
  'stamp-invoice': QUEUES.stamp,
  'sweep-stamping': QUEUES.stamp,
  'render-invoice-pdf': QUEUES.pdf,
  'sweep-invoice-follow-ups': QUEUES.pdf,
  'email-invoice': QUEUES.email,
  'email-cancellation': QUEUES.email,
  'cancel-invoice': QUEUES.cancel,
  'poll-cancellations': QUEUES.cancel,
  'dispatch-webhooks': QUEUES.webhooks,
  'deliver-webhook': QUEUES.webhooks,
  'issue-global-invoices': QUEUES.globalInvoice,
  'announce-expiring-csds': QUEUES.webhooks,
};

/** Predictable job ids where a duplicate must not happen (BullMQ refuses ':' in custom ids). */
export const jobId = {
  /** Known before the add, so the API can watch for the result before the job exists (shared/queues.ts). */
  renderQr: (qrId: string) => `render.${qrId}`,
  /** One delayed job per epoch second in which QRs fall due. */
  expireDue: (dueAt: number) => `expire-due.${dueAt}`,
  planExpiries: 'plan-expiries',
  sweepExpired: 'sweep-expired-qrs',
  /** Deduplication id: one synchronization per issuer waiting or running at a time. */
  syncIssuer: (issuerId: string) => `sync-issuer.${issuerId}`,
  sweepLostSyncs: 'sweep-lost-syncs',
  /** One stamp job per invoice: a re-enqueue while it waits or runs is a no-op. */
  stampInvoice: (invoiceId: string) => `stamp.${invoiceId}`,
  sweepStamping: 'sweep-stamping',
  renderInvoicePdf: (invoiceId: string) => `pdf.${invoiceId}`,
  emailInvoice: (invoiceId: string) => `email.${invoiceId}`,
  /** The buyer told once that their invoice was cancelled. */
  emailCancellation: (invoiceId: string) => `email-cancellation.${invoiceId}`,
  sweepInvoiceFollowUps: 'sweep-invoice-follow-ups',
  /** One job per cancellation request: a repeated DELETE or the poll's re-queue while it waits is a no-op. */
  cancelInvoice: (cancellationId: string) => `cancel.${cancellationId}`,
  pollCancellations: 'poll-cancellations',
  dispatchWebhooks: 'dispatch-webhooks',
  issueGlobalInvoices: 'issue-global-invoices',
  announceExpiringCsds: 'announce-expiring-csds',
  /** One job per delivery: the dispatcher's re-queue of a lost one is a no-op while it waits or retries. */
  deliverWebhook: (deliveryId: string) => `webhook.${deliveryId}`,
} as const;
