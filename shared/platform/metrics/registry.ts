import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * Every metric the service exports, named in one place so the API and the worker process share the
 * definitions (issue #8). One registry per process: the API serves it at /metrics, the worker process
 * on WORKER_METRICS_PORT. Label values come from small fixed sets (route patterns, queue and job names,
 * outcomes), never from ids or raw paths: each new value is a new time series.
 */
export const registry = new Registry();

// Node's own process metrics (CPU, memory, event-loop lag, GC) under their usual names, for the usual dashboards.
collectDefaultMetrics({ register: registry });

/** Its `_count` is the request counter: requests by route and status. */
export const httpRequestDuration = new Histogram({
  name: 'autofactura_http_request_duration_seconds',
  help: 'HTTP requests by method, route pattern (or "unmatched") and status, and how long they took to answer.',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [registry],
});

export const idempotentReplays = new Counter({
  name: 'autofactura_idempotent_replays_total',
  help: 'Requests answered with the result of an earlier request with the same idempotency key (Idempotent-Replayed: true).',
  labelNames: ['route'] as const,
  registers: [registry],
});

export const idempotencyConflicts = new Counter({
  name: 'autofactura_idempotency_conflicts_total',
  help: 'Requests refused with 409 idempotency_key_reused: a key used again with another body.',
  labelNames: ['route'] as const,
  registers: [registry],
});

/** Its `_count` is the job counter. */
export const jobDuration = new Histogram({
  name: 'autofactura_job_duration_seconds',
  help: 'Job attempts by queue, job name and outcome (completed; retrying: failed, another attempt follows; failed: failed for good), and how long they ran.',
  labelNames: ['queue', 'job_name', 'outcome'] as const,
  buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
  registers: [registry],
});

export const queueJobs = new Gauge({
  name: 'autofactura_queue_jobs',
  help: 'Jobs per queue and state (waiting, active, delayed, failed; scheduled: the periodic sweeps, whose next runs delayed leaves out), read from Redis when scraped.',
  labelNames: ['queue', 'state'] as const,
  registers: [registry],
});

export const queueOldestWaitingAge = new Gauge({
  name: 'autofactura_queue_oldest_waiting_seconds',
  help: 'How long the oldest job waiting for a worker has been ready, per queue (0 when none waits), read from Redis when scraped.',
  labelNames: ['queue'] as const,
  registers: [registry],
});

export const needsAttention = new Gauge({
  name: 'autofactura_needs_attention',
  help: 'Things the service stopped retrying by itself, per kind (invoice, csf-sync, export, webhook-delivery, …), waiting for an operator to retry or give them up (docs/operations.md, Runbook), read from PostgreSQL when scraped.',
  labelNames: ['kind'] as const,
  registers: [registry],
});

export const pacRequestDuration = new Histogram({
  name: 'autofactura_pac_request_duration_seconds',
  help: "Calls to the PAC (stamp, cancel) and to SAT's CFDI status service (status) by outcome (ok, unavailable, refused, credentials_rejected, error), and how long they took.",
  labelNames: ['operation', 'outcome'] as const,
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60],
  registers: [registry],
});

/** Alarmed (docs/operations.md, "Runbook"): a CFDI exists at SAT that the service could not record. */
export const stampsWithheld = new Counter({
  name: 'autofactura_stamps_withheld_total',
  help: 'Invoices a stamp job gave up on because the PAC said it had stamped them but never handed the stamp over (SW 307 or CFDI3307 without the CFDI).',
  registers: [registry],
});

export const csfRequestDuration = new Histogram({
  name: 'autofactura_csf_request_duration_seconds',
  help: "Calls to the CSF service (SAT's tax-status certificates) by outcome (ok, unavailable, not_found, error), and how long they took.",
  labelNames: ['outcome'] as const,
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20],
  registers: [registry],
});

/** shared/platform/db.ts's onReplicaOrPrimary: how often the replica's lag showed to a client (DATABASE_READ_URL). */
export const replicaMisses = new Counter({
  name: 'autofactura_replica_misses_total',
  help: 'Rows a client read right after writing them (a QR, a sale) that the replica had not replayed yet and the primary answered.',
  registers: [registry],
});

/** The QR lifecycle as it happens (shared/domain/qr-lifecycle.ts): created (PENDING), scanned, invoiced, expired. */
export const qrTransitions = new Counter({
  name: 'autofactura_qr_transitions_total',
  help: 'QRs entering a status: PENDING (created), SCANNED (first opened), INVOICED (stamped), EXPIRED.',
  labelNames: ['status'] as const,
  registers: [registry],
});

/** Set by the worker process from the alarm's shared state (shared/adapters/pac/pac-credentials-alarm.ts). */
export const pacCredentialsRejected = new Gauge({
  name: 'autofactura_pac_credentials_rejected',
  help: "Whether the PAC refuses the service's credentials (PAC_TOKEN, or PAC_USER and PAC_PASSWORD): 1 while stamping and cancelling are paused for it, 0 once a call succeeds again.",
  registers: [registry],
});
