/**
 * What SAT's tax-status certificate (Constancia de Situación Fiscal, CSF) says about a taxpayer, and the
 * small interface every CSF source implements: the HTTP adapter in production and development, and the
 * fake (fakes/csf-server.ts) behind it in development and tests.
 */
export interface CsfRegime {
  code: string;
  /** YYYY-MM-DD */
  since?: string;
}

export interface CsfData {
  rfc: string;
  legalName: string;
  zip: string;
  /** SAT's padrón status, e.g. ACTIVO */
  status: string;
  regimes: CsfRegime[];
}

export interface CsfClient {
  /** One attempt; the caller retries. */
  fetch(rfc: string, idCif: string): Promise<CsfData>;
}

/** Worth another attempt: timeouts, 5xx, connection failures, unreadable answers. */
export class CsfUnavailable extends Error {}

/** Retrying will not help: SAT does not know this RFC with this idCIF. */
export class CsfNotFound extends Error {}
