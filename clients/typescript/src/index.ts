export {
  AutofacturaClient,
  ApiError,
  type Answer,
  type ClientOptions,
  type ErrorDetail,
  type QrCreateRequest,
  type QrTransaction,
  type Replayable,
  type QrListQuery,
  type InvoiceListQuery,
  type InvoiceExportQuery,
  type QrSummaryPage,
  type InvoiceSummaryPage,
  type InvoiceSummary,
  type PeriodSummaryQuery,
  type PeriodSummary,
} from './client.js';
export { verifyWebhook } from './verify-webhook.js';
export { offlineTicket, type OfflineSale, type OfflineTicket } from './offline-ticket.js';
export type { components, paths, operations } from './schema.js';
