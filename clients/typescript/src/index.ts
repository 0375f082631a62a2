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
} from './client.js';
export { verifyWebhook } from './verify-webhook.js';
export type { components, paths, operations } from './schema.js';
