/**
 * A small typed client of the self-invoicing QR service: requests typed from the OpenAPI document
 * (schema.ts, generated), the API key or a bearer token, a fresh `idempotency-key` per logical operation
 * kept across its retries, retries on 503 and 429 honouring `Retry-After`, and errors as ApiError with the
 * service's `code`, `details` and `request_id`.
 */
import type { components, operations } from './schema.js';
import { offlineTicket, type OfflineTicket } from './offline-ticket.js';

export type QrCreateRequest = components['schemas']['QrCreateRequest'];

export interface ErrorDetail {
  field: string;
  code: string;
  message: string;
  [key: string]: unknown;
}

/** The service's error object, as a thrown error. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[],
    readonly requestId: string | undefined,
    readonly body: unknown,
  ) {
    super(`${status} ${code}: ${message}`);
    this.name = 'ApiError';
  }
}

export interface ClientOptions {
  baseUrl: string;
  /** A merchant's API key (X-API-Key): POS routes. */
  apiKey?: string;
  /** An access token (POST /v1/auth/token): management routes. */
  accessToken?: string;
  /** IANA time zone of the point of sale (X-TIME-ZONE); defaults to America/Mexico_City. */
  timeZone?: string;
  /** Attempts per operation on 503 and 429 (default 4). */
  attempts?: number;
  /** Longest wait between attempts, whatever Retry-After says (default 30 s). */
  maxRetryDelayMs?: number;
  fetch?: typeof fetch;
  /** The store's offline key (`afok_…`) and the link base it came with: offlineTicket() signs with them. */
  offline?: { key: string; linkBaseUrl: string };
}

/** Filters and page of GET /v1/qrs, GET /v1/qrs/invoices and GET /v1/qrs/invoices/export. */
export type QrListQuery = NonNullable<operations['listQrs']['parameters']['query']>;
export type InvoiceListQuery = NonNullable<operations['listInvoices']['parameters']['query']>;
export type InvoiceExportQuery = operations['exportInvoices']['parameters']['query'];
export type QrSummaryPage = components['schemas']['QrSummaryPage'];
export type InvoiceSummaryPage = components['schemas']['InvoiceSummaryPage'];
export type InvoiceSummary = components['schemas']['InvoiceSummary'];
/** Period and scope of GET /v1/qrs/invoices/summary, and its answer. */
export type PeriodSummaryQuery = operations['summarizeInvoices']['parameters']['query'];
export type PeriodSummary = components['schemas']['PeriodSummary'];
/** POST /v1/qrs/invoices/exports: the ZIP of a period's CFDIs (the export's filters, `include_pdf`), and its state. */
export type InvoiceExportRequest = components['schemas']['InvoiceExportRequest'];
export type InvoiceExport = components['schemas']['InvoiceExport'];

function queryString(query: Record<string, string | number | undefined>): string {
  const entries = Object.entries(query).flatMap(([k, v]): [string, string][] => (v === undefined ? [] : [[k, String(v)]]));
  return entries.length === 0 ? '' : `?${new URLSearchParams(entries).toString()}`;
}

/** A QR transaction as the API answers it (POST /v1/qrs, GET /v1/qrs/{qrId}). */
export type QrTransaction = components['schemas']['QrTransaction'];

/**
 * An answer to a request with an idempotency key: `replayed` is true when the service answered with the
 * result of an earlier request with the same key (response header `Idempotent-Replayed: true`), e.g. a
 * retry after a lost answer: nothing new was created.
 */
export type Replayable<T> = T & { replayed: boolean };

/** One answer with what its headers say. */
export interface Answer<T> {
  status: number;
  body: T;
  replayed: boolean;
  requestId: string | undefined;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function retryDelayMs(res: Response, attempt: number, max: number): number {
  const header = res.headers.get('retry-after');
  const seconds = header !== null && /^\d+$/.test(header) ? Number(header) : undefined;
  const date = header !== null && seconds === undefined ? Date.parse(header) - Date.now() : undefined;
  const wanted = seconds !== undefined ? seconds * 1000 : date !== undefined && !Number.isNaN(date) ? date : 250 * 2 ** attempt;
  return Math.min(Math.max(0, wanted), max);
}

export class AutofacturaClient {
  private readonly fetch: typeof fetch;

  constructor(private readonly options: ClientOptions) {
    this.fetch = options.fetch ?? fetch;
  }

  /** POST /v1/qrs: one logical operation, one idempotency key (pass your own to resume after a crash). */
  async createQr(sale: QrCreateRequest, idempotencyKey: string = crypto.randomUUID()): Promise<Replayable<QrTransaction>> {
    const answer = await this.send<QrTransaction>('POST', '/v1/qrs', { body: sale, idempotencyKey });
    return { ...answer.body, replayed: answer.replayed };
  }

  /**
   * The ticket to print when createQr cannot reach the service: signed here with the store's offline key,
   * no network. Post the sale later with `offline_ticket: ticket.link` (same sale_id and amount).
   */
  offlineTicket(sale: Pick<QrCreateRequest, 'sale_id' | 'amount'>, soldAt: Date = new Date()): OfflineTicket {
    if (!this.options.offline) throw new RangeError('offlineTicket needs the client option `offline` ({ key, linkBaseUrl })');
    return offlineTicket(this.options.offline.key, this.options.offline.linkBaseUrl, { saleId: sale.sale_id, amount: sale.amount, soldAt });
  }

  /** GET /v1/qrs/{qrId}. */
  getQr(qrId: string): Promise<QrTransaction> {
    return this.request<QrTransaction>('GET', `/v1/qrs/${encodeURIComponent(qrId)}`);
  }

  /** Polls GET /v1/qrs/{qrId} until the QR leaves PENDING/SCANNED (INVOICED, EXPIRED or CANCELLED). */
  async waitForQr(qrId: string, options: { everyMs?: number; timeoutMs?: number } = {}): Promise<QrTransaction> {
    const deadline = Date.now() + (options.timeoutMs ?? 15 * 60_000);
    for (;;) {
      const qr = await this.getQr(qrId);
      if (qr.status !== 'PENDING' && qr.status !== 'SCANNED') return qr;
      if (Date.now() >= deadline) return qr;
      await sleep(options.everyMs ?? 5000);
    }
  }

  /** GET /v1/qrs: one page of QR transactions, newest first; pass `next_cursor` back as `cursor` for the next. */
  listQrs(query: QrListQuery = {}): Promise<QrSummaryPage> {
    return this.request<QrSummaryPage>('GET', `/v1/qrs${queryString(query)}`);
  }

  /** GET /v1/qrs/invoices: one page of the merchant's CFDIs, newest first. */
  listInvoices(query: InvoiceListQuery = {}): Promise<InvoiceSummaryPage> {
    return this.request<InvoiceSummaryPage>('GET', `/v1/qrs/invoices${queryString(query)}`);
  }

  /** Every CFDI the filters match, page after page (the cursor keeps the walk exact while new ones are issued). */
  async *eachInvoice(query: Omit<InvoiceListQuery, 'cursor'> = {}): AsyncGenerator<InvoiceSummary> {
    let cursor: string | undefined;
    do {
      const page = await this.listInvoices({ ...query, ...(cursor ? { cursor } : {}) });
      yield* page.content;
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  }

  /** GET /v1/qrs/invoices/summary: a period added up per merchant and issuer, with every difference named. */
  summarizeInvoices(query: PeriodSummaryQuery): Promise<PeriodSummary> {
    return this.request<PeriodSummary>('GET', `/v1/qrs/invoices/summary${queryString(query)}`);
  }

  /** GET /v1/qrs/invoices/export: the CSV or JSON lines as a stream (it may be large: read it as it comes). */
  async exportInvoices(query: InvoiceExportQuery): Promise<ReadableStream<Uint8Array>> {
    const res = await this.fetch(`${this.options.baseUrl.replace(/\/+$/, '')}/v1/qrs/invoices/export${queryString(query)}`, { headers: this.headers() });
    if (!res.ok || !res.body) {
      const body = (await res.json().catch(() => undefined)) as { error?: { code?: string; message?: string; details?: ErrorDetail[]; request_id?: string } } | undefined;
      throw new ApiError(res.status, body?.error?.code ?? 'http_error', body?.error?.message ?? res.statusText, body?.error?.details ?? [], body?.error?.request_id, body);
    }
    return res.body;
  }

  /**
   * POST /v1/qrs/invoices/exports: asks for the ZIP of a period's CFDIs (one idempotency key per logical request:
   * pass your own to find the same export again after a crash). Follow it with getInvoiceExport until READY, then
   * download `download_url` (signed: no credentials).
   */
  async createInvoiceExport(request: InvoiceExportRequest = {}, idempotencyKey: string = crypto.randomUUID()): Promise<InvoiceExport> {
    return this.request<InvoiceExport>('POST', '/v1/qrs/invoices/exports', { body: request, idempotencyKey });
  }

  /** GET /v1/qrs/invoices/exports/{exportId}: its progress, and once READY its download link. */
  getInvoiceExport(exportId: string): Promise<InvoiceExport> {
    return this.request<InvoiceExport>('GET', `/v1/qrs/invoices/exports/${encodeURIComponent(exportId)}`);
  }

  private headers(): Record<string, string> {
    const headers: Record<string, string> = { 'X-TIME-ZONE': this.options.timeZone ?? 'America/Mexico_City' };
    if (this.options.apiKey) headers['X-API-Key'] = this.options.apiKey;
    if (this.options.accessToken) headers.Authorization = `Bearer ${this.options.accessToken}`;
    return headers;
  }

  /** Any route: JSON in and out, the client's credentials, retries on 503 and 429 with the same idempotency key. */
  async request<T>(method: string, path: string, options: { body?: unknown; idempotencyKey?: string } = {}): Promise<T> {
    return (await this.send<T>(method, path, options)).body;
  }

  /** As request, with the answer's status, whether it was a replay (Idempotent-Replayed) and its request id. */
  async send<T>(method: string, path: string, options: { body?: unknown; idempotencyKey?: string } = {}): Promise<Answer<T>> {
    const attempts = this.options.attempts ?? 4;
    const headers: Record<string, string> = { Accept: 'application/json', ...this.headers() };
    if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
    if (options.body !== undefined) headers['Content-Type'] = 'application/json';
    for (let attempt = 1; ; attempt++) {
      const res = await this.fetch(`${this.options.baseUrl.replace(/\/+$/, '')}${path}`, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
      });
      const text = await res.text();
      const body: unknown = text === '' ? undefined : JSON.parse(text);
      if (res.ok) {
        const requestId = res.headers.get('x-request-id') ?? undefined;
        return { status: res.status, body: body as T, replayed: res.headers.get('idempotent-replayed') === 'true', requestId };
      }
      if ((res.status === 503 || res.status === 429) && attempt < attempts) {
        await sleep(retryDelayMs(res, attempt, this.options.maxRetryDelayMs ?? 30_000));
        continue;
      }
      const error = (body as { error?: { code?: string; message?: string; details?: ErrorDetail[]; request_id?: string } } | undefined)?.error;
      throw new ApiError(
        res.status,
        error?.code ?? 'http_error',
        error?.message ?? res.statusText,
        error?.details ?? [],
        error?.request_id ?? res.headers.get('x-request-id') ?? undefined,
        body,
      );
    }
  }
}
