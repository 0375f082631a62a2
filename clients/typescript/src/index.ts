export { AutofacturaClient, ApiError, type ClientOptions, type ErrorDetail, type QrCreateRequest, type QrTransaction } from './client.js';
export { verifyWebhook } from './verify-webhook.js';
export type { components, paths, operations } from './schema.js';
