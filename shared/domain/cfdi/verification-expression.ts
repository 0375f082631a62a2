import { Comprobante40 } from '@nodecfdi/cfdi-expresiones';

/** What identifies a stamped CFDI to SAT's verification: the printed QR and the status service both carry it. */
export interface VerificationFacts {
  uuid: string;
  issuerRfc: string;
  receptorRfc: string;
  /** Total as written in the CFDI. */
  total: string;
  /** The CFDI's Sello (the expression keeps its last 8 characters). */
  seal: string;
}

/**
 * The CFDI 3.3/4.0 expression of Anexo 20's QR (`https://verificacfdi.facturaelectronica.sat.gob.mx/default.aspx?id=…&re=…&rr=…&tt=…&fe=…`),
 * as @nodecfdi/cfdi-expresiones writes it: RFCs XML-escaped (`&` as `&amp;`, Ñ as it is), the total without
 * trailing zeros (at least one decimal), `fe` the seal's last 8 characters. The PDF's QR and SAT's status query use
 * this one function, so what the buyer scans is what the service asks about.
 */
export function verificationExpression(facts: VerificationFacts): string {
  return new Comprobante40().format({ id: facts.uuid, re: facts.issuerRfc, rr: facts.receptorRfc, tt: facts.total, fe: facts.seal });
}
