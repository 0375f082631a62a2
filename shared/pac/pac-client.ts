/**
 * The PAC (Proveedor Autorizado de Certificación) seen from the service: it stamps a sealed CFDI.
 * Temporary failures (timeouts, 5xx, unreadable answers) are PacUnavailable and are retried;
 * a validation refusal is PacRefused, final for that document, with the PAC's own code kept.
 */
export interface PacStamp {
  uuid: string;
  /** The CFDI with its TimbreFiscalDigital, as the PAC returned it. */
  xml: string;
  stampedAt: string;
  satCertificateNumber: string;
  /** True when the PAC had already stamped this very document and returned that stamp again. */
  previouslyStamped: boolean;
}

export interface PacClient {
  stamp(sealedXml: string): Promise<PacStamp>;
}

export class PacUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PacUnavailable';
  }
}

export class PacRefused extends Error {
  /** `pacCode` is the PAC's raw code, e.g. CFDI40145. */
  constructor(readonly pacCode: string, message: string) {
    super(message);
    this.name = 'PacRefused';
  }
}
