/** One field-level problem, as the spec's `error.details[]` item. */
export interface ErrorDetail {
  field: string;
  code: string;
  message: string;
  /** Who refused (buyer routes): our own checks, the PAC, or SAT. */
  source?: 'service' | 'pac' | 'sat';
  /** The PAC's raw code, when the PAC refused (e.g. CFDI40145). */
  pac_code?: string;
  /** The value the service computed for the field, when the one sent does not reconcile with it. */
  expected?: string;
}

/**
 * The only error type the API answers with. `status` and `code` are the contract;
 * `expose=false` hides the message of unexpected failures from clients.
 */
export class AppError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: ErrorDetail[];
  readonly headers: Record<string, string>;
  readonly expose: boolean;
  /** Further members of the error object for this error (e.g. an invoiced QR's `invoice` links). */
  readonly extra: Record<string, unknown>;

  constructor(
    status: number,
    code: string,
    message: string,
    options: { details?: ErrorDetail[]; headers?: Record<string, string>; cause?: unknown; expose?: boolean; extra?: Record<string, unknown> } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.status = status;
    this.code = code;
    this.details = options.details ?? [];
    this.headers = options.headers ?? {};
    this.expose = options.expose ?? status < 500;
    this.extra = options.extra ?? {};
  }
}

export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError;
}
