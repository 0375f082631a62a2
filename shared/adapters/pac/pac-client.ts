/**
 * The PAC (Proveedor Autorizado de Certificación) seen from the service: it stamps a sealed CFDI.
 * Temporary failures (timeouts, 5xx, unreadable answers, the PAC's own "uncontrolled error") are
 * PacUnavailable and are retried; a validation refusal is PacRefused, final for that document, with the
 * PAC's own code kept.
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

/** What SAT's public CFDI status service (ConsultaCFDIService) tells about a stamped CFDI. */
export interface SatCfdiStatus {
  /** `Vigente`, `Cancelado` or `No Encontrado`. */
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
}

export interface PacClient {
  stamp(sealedXml: string, options?: PacStampOptions): Promise<PacStamp>;
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
  /** `pacCode` is the PAC's raw code, e.g. CFDI40145. */
  constructor(
    readonly pacCode: string,
    message: string,
  ) {
    super(message);
    this.name = 'PacRefused';
  }
}
