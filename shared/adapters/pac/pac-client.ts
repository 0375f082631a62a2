/**
 * The PAC (Proveedor Autorizado de Certificación) seen from the service: it stamps a sealed CFDI.
 * Temporary failures (timeouts, 5xx, unreadable answers, the PAC's own "uncontrolled error") are
 * PacUnavailable and are retried; a validation refusal is PacRefused, final for that document, with the
 * PAC's own code kept. Credentials the PAC refuses (401/403) are PacCredentialsRejected.
 */
export interface PacStamp {
  uuid: string;
  /** The CFDI with its TimbreFiscalDigital, as the PAC returned it. */
  xml: string;
  stampedAt: string;
  satCertificateNumber: string;
  /**
   * True when the PAC had stamped before and returned that stamp again: this very document, or (by
   * `customId`) an earlier document of the same invoice, whose XML (and Fecha) `xml` then is.
   */
  previouslyStamped: boolean;
}

export interface PacStampOptions {
  /**
   * One invoice's identity at the PAC, the same for every document sealed for it: a PAC that already stamped
   * a document under it answers that stamp instead of stamping another document (SW's `customid`).
   */
  customId?: string;
}

/** SAT's c_MotivoCancelacion. */
export type CancellationMotive = '01' | '02' | '03' | '04';

export interface PacCancelRequest {
  uuid: string;
  issuerRfc: string;
  motive: CancellationMotive;
  /** Required with motive 01: the CFDI that replaces this one (related to it with TipoRelacion 04). */
  substitutionUuid?: string;
  /** The merchant's CSD as uploaded: certificate (DER), encrypted PKCS#8 key (DER) and its password. Secrets: never logged. */
  certificateDer: Buffer;
  privateKeyDer: Buffer;
  password: string;
}

export interface PacCancelAnswer {
  /** SAT's acknowledgement of the request (XML), to keep and show. */
  acuse: string;
  /** SAT's code for this UUID in the acuse: 201 request accepted, 202 already cancelled. */
  satCode: string;
}

/**
 * SAT's CodigoEstatus, read as phpcfdi/sat-estado-cfdi reads it: `S - Comprobante obtenido satisfactoriamente.` is
 * `found`; `N - 601: La expresión impresa proporcionada no es válida.` is `invalid_expression` (the question was
 * wrong, not the CFDI); any other `N - …` (`N - 602: Comprobante no encontrado.`) is `not_found`.
 */
export type SatQueryResult = 'found' | 'not_found' | 'invalid_expression';

/** What SAT's public CFDI status service (ConsultaCFDIService) tells about a stamped CFDI. */
export interface SatCfdiStatus {
  query: SatQueryResult;
  /** CodigoEstatus as SAT wrote it. */
  code: string;
  /** `Vigente`, `Cancelado` or `No Encontrado` (empty when SAT could not read the expression). */
  state: string;
  /** `Cancelable sin aceptación`, `Cancelable con aceptación` or `No cancelable`. */
  cancellable: string;
  /** Empty while nothing was asked; then `En proceso`, `Cancelado sin aceptación`, `Cancelado con aceptación`, `Plazo vencido` or `Solicitud rechazada`. */
  cancellationStatus: string;
}

export interface SatStatusQuery {
  uuid: string;
  issuerRfc: string;
  receptorRfc: string;
  /** The CFDI's Total attribute as written in it. */
  total: string;
  /** The CFDI's Sello: the CFDI 4.0 expression carries its last 8 characters (`fe`). */
  seal: string;
}

export interface PacClient {
  /** `options` is required so that every wrapper (metrics, the credentials alarm) passes it on: a dropped customid is a second CFDI after a re-seal. */
  stamp(sealedXml: string, options: PacStampOptions): Promise<PacStamp>;
  /** Asks SAT, through the PAC, to cancel a stamped CFDI. Temporary failures are PacUnavailable; refusals PacRefused. */
  cancel(request: PacCancelRequest): Promise<PacCancelAnswer>;
  /** SAT's current status of a CFDI: after a cancellation, whether it is done, waiting for the receptor, or rejected. */
  status(query: SatStatusQuery): Promise<SatCfdiStatus>;
}

export class PacUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PacUnavailable';
  }
}

/**
 * The PAC throttled the account (HTTP 429): no call of this service's queue will do better until the PAC's
 * window passes, so the queue pauses for `retryAfterMs` (its Retry-After, when it sends one) instead of each job
 * spending attempts on it (workers/pause-on-pac.ts).
 */
export class PacThrottled extends PacUnavailable {
  constructor(
    message: string,
    readonly retryAfterMs: number | undefined,
  ) {
    super(message);
    this.name = 'PacThrottled';
  }
}

/**
 * The PAC says it stamped this document (or this customId) before but did not hand the stamp over: retried
 * like any PacUnavailable, and a stamp job that still gets it on its last attempt stops and names it.
 */
export class PacStampWithheld extends PacUnavailable {
  constructor(message: string) {
    super(message);
    this.name = 'PacStampWithheld';
  }
}

export class PacRefused extends Error {
  /**
   * `pacCode` is the PAC's raw code, e.g. CFDI40145; `detail` what the PAC says besides (SW's `messageDetail`): for
   * a cancellation SW's message is a generic `CACFDI33 - Problemas con …` and the cause is only there.
   */
  constructor(
    readonly pacCode: string,
    message: string,
    readonly detail?: string,
  ) {
    super(message);
    this.name = 'PacRefused';
  }
}

/** The code a PAC's or SAT's text starts with (`CA205 - UUID no existe`, `CR1310. Clave de …`), if any. */
export function leadingCode(text: string): string | undefined {
  return /^\s*([A-Z]{1,8}[0-9]{2,6}|[0-9]{3,4})\s*(?:-|\.|:)/.exec(text)?.[1];
}

/** What the PAC refused: the token a call presented (expired, regenerated, unknown), or the user and password. */
export type PacCredentialsProblem = 'token rejected' | 'authentication refused';

/**
 * The PAC refused the service's credentials (HTTP 401/403 on a call, after one renewal where the service
 * authenticates itself; or its user and password). Neither a refusal of the document nor an outage: nothing
 * succeeds until an operator fixes the credentials, so stamping and cancelling pause instead of spending
 * attempts (workers/pause-on-pac.ts). The message carries SW's code, never a token or password.
 */
export class PacCredentialsRejected extends Error {
  constructor(
    readonly problem: PacCredentialsProblem,
    message: string,
  ) {
    super(message);
    this.name = 'PacCredentialsRejected';
  }
}
