/** One field-level problem, as the spec's `error.details[]` item. */
export interface ErrorDetail {
  field: string;
  code: string;
  message: string;
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

  constructor(
    status: number,
    code: string,
    message: string,
    options: { details?: ErrorDetail[]; headers?: Record<string, string>; cause?: unknown; expose?: boolean } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.status = status;
    this.code = code;
    this.details = options.details ?? [];
    this.headers = options.headers ?? {};
    this.expose = options.expose ?? status < 500;
  }
}

export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError;
}
