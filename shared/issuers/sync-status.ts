/** Where an issuer's CSF synchronization stands (a BullMQ job with retries). */
export const SYNC_STATUSES = ['PENDING', 'RUNNING', 'RETRY_SCHEDULED', 'SUCCEEDED', 'FAILED'] as const;

export type SyncStatus = (typeof SYNC_STATUSES)[number];
