/**
 * What the printed representation of a stamped CFDI 4.0 shows, read from its XML: every value is the
 * text exactly as written in the document (amounts are never reformatted), plus the SAT catalog
 * descriptions of its keys and the TFD's cadena original.
 */
import { DOMParser, type Element } from '@xmldom/xmldom';
import type { CatalogName, SatCatalogs } from '../sat/catalogs.js';

const CFDI_NS = 'http://www.sat.gob.mx/cfd/4';
const TFD_NS = 'http://www.sat.gob.mx/TimbreFiscalDigital';

/** A catalog key and its description (undefined when the key is not in our copy of the catalog). */
export interface Coded {
  code: string;
  description: string | undefined;
}

/** A Traslado or Retencion. Document-level withholdings carry only `tax` and `amount`. */
export interface InvoicePdfTax {
  base?: string;
  tax: Coded;
  /** TipoFactor: Tasa, Cuota or Exento. */
  factor?: string;
  /** TasaOCuota. */
  rate?: string;
  amount?: string;
}

export interface InvoicePdfConcept {
  productKey: Coded;
  /** NoIdentificacion. */
  identification?: string;
  quantity: string;
  unitKey: Coded;
  /** Unidad, the issuer's own unit name. */
  unit?: string;
  description: string;
  unitValue: string;
  amount: string;
  discount?: string;
  taxObject: Coded;
  transfers: InvoicePdfTax[];
  withholdings: InvoicePdfTax[];
}

export interface InvoicePdfData {
  series?: string;
  folio?: string;
  /** Fecha, local time of the place of issue. */
  date: string;
  paymentForm?: Coded;
  paymentMethod?: Coded;
  paymentConditions?: string;
  currency: Coded;
  exchangeRate?: string;
  subtotal: string;
  discount?: string;
  total: string;
  receiptType: Coded;
  exportation: Coded;
  /** LugarExpedicion (postal code). */
  placeOfIssue: string;
  /** NoCertificado of the issuer's CSD. */
  certificateNumber: string;
  /** Sello. */
  seal: string;
  globalInformation?: { periodicity: Coded; months: Coded; year: string };
  relatedCfdis: { relationType: Coded; uuids: string[] }[];
  issuer: { rfc: string; name: string; taxRegime: Coded };
  receiver: {
    rfc: string;
    name: string;
    /** DomicilioFiscalReceptor (postal code). */
    taxZipCode: string;
    foreignResidence?: Coded;
    foreignTaxId?: string;
    taxRegime: Coded;
    cfdiUse: Coded;
  };
  concepts: InvoicePdfConcept[];
  taxes?: {
    totalTransferred?: string;
    totalWithheld?: string;
    transfers: InvoicePdfTax[];
    withholdings: InvoicePdfTax[];
  };
  stamp: {
    uuid: string;
    stampedAt: string;
    pacRfc: string;
    legend?: string;
    cfdSeal: string;
    satCertificateNumber: string;
    satSeal: string;
    /** Cadena original del complemento de certificación digital del SAT (cadenaoriginal_TFD_1_1.xslt). */
    originalString: string;
  };
}

function elementChildren(parent: Element, ns: string, localName: string): Element[] {
  const found: Element[] = [];
  for (let n = parent.firstChild; n; n = n.nextSibling) {
    if (n.nodeType === n.ELEMENT_NODE) {
      const e = n as Element;
      if (e.namespaceURI === ns && e.localName === localName) found.push(e);
    }
  }
  return found;
}

function elementChild(parent: Element, ns: string, localName: string): Element | undefined {
  return elementChildren(parent, ns, localName)[0];
}

function optional(e: Element, name: string): string | undefined {
  return e.hasAttribute(name) ? e.getAttribute(name) ?? undefined : undefined;
}

function required(e: Element, name: string): string {
  const value = optional(e, name);
  if (value === undefined) throw new Error(`invalid CFDI 4.0: ${e.tagName} has no ${name}`);
  return value;
}

function requiredChild(parent: Element, ns: string, localName: string): Element {
  const found = elementChild(parent, ns, localName);
  if (!found) throw new Error(`invalid CFDI 4.0: ${parent.tagName} has no ${localName}`);
  return found;
}

function parseDocument(xml: string): Element {
  let problem: string | undefined;
  let root: Element | null;
  try {
    // Any warning stops parsing too: a stamped document is well-formed XML.
    const parser = new DOMParser({ onError: (_level, message) => { problem ??= message; throw new Error(message); } });
    // Files PACs return often start with a UTF-8 byte order mark, which a decoded string keeps.
    root = parser.parseFromString(xml.replace(/^\uFEFF/, ''), 'text/xml').documentElement;
  } catch {
    throw new Error(`not a stamped CFDI 4.0: the XML is not well-formed (${problem ?? 'unreadable'})`);
  }
  if (!root || root.namespaceURI !== CFDI_NS || root.localName !== 'Comprobante' || root.getAttribute('Version') !== '4.0') {
    throw new Error('not a stamped CFDI 4.0: the root is not a cfdi:Comprobante Version 4.0');
  }
  return root;
}

/** XSLT normalize-space(): what the cadena original does to every value. */
function normalizeSpace(value: string): string {
  return value.replace(/[ \t\r\n]+/g, ' ').trim();
}

/** The TFD's cadena original, as SAT's cadenaoriginal_TFD_1_1.xslt builds it. */
function tfdOriginalString(tfd: Element): string {
  const legend = optional(tfd, 'Leyenda');
  const values = [
    required(tfd, 'Version'), required(tfd, 'UUID'), required(tfd, 'FechaTimbrado'), required(tfd, 'RfcProvCertif'),
    // Opcional: written only when present and not empty.
    ...(legend ? [legend] : []),
    required(tfd, 'SelloCFD'), required(tfd, 'NoCertificadoSAT'),
  ];
  return `||${values.map(normalizeSpace).join('|')}||`;
}

export function invoicePdfDataFromXml(xml: string, catalogs: SatCatalogs): InvoicePdfData {
  const root = parseDocument(xml);
  const complement = elementChildren(root, CFDI_NS, 'Complemento');
  const tfd = complement.flatMap((c) => elementChildren(c, TFD_NS, 'TimbreFiscalDigital'))[0];
  if (!tfd) throw new Error('not a stamped CFDI 4.0: it has no tfd:TimbreFiscalDigital');
  if (tfd.getAttribute('Version') !== '1.1') throw new Error('not a stamped CFDI 4.0: the TimbreFiscalDigital is not Version 1.1');

  const coded = (catalog: CatalogName, code: string): Coded => ({ code, description: catalogs.description(catalog, code) });
  const codedOptional = (catalog: CatalogName, code: string | undefined): Coded | undefined =>
    code === undefined ? undefined : coded(catalog, code);
  const taxOf = (e: Element): InvoicePdfTax => ({
    base: optional(e, 'Base'),
    tax: coded('c_Impuesto', required(e, 'Impuesto')),
    factor: optional(e, 'TipoFactor'),
    rate: optional(e, 'TasaOCuota'),
    amount: optional(e, 'Importe'),
  });
  const taxList = (taxes: Element | undefined, group: string, item: string): InvoicePdfTax[] => {
    const list = taxes && elementChild(taxes, CFDI_NS, group);
    return list ? elementChildren(list, CFDI_NS, item).map(taxOf) : [];
  };

  const issuer = requiredChild(root, CFDI_NS, 'Emisor');
  const receiver = requiredChild(root, CFDI_NS, 'Receptor');
  const global = elementChild(root, CFDI_NS, 'InformacionGlobal');
  const documentTaxes = elementChild(root, CFDI_NS, 'Impuestos');

  return {
    series: optional(root, 'Serie'),
    folio: optional(root, 'Folio'),
    date: required(root, 'Fecha'),
    paymentForm: codedOptional('c_FormaPago', optional(root, 'FormaPago')),
    paymentMethod: codedOptional('c_MetodoPago', optional(root, 'MetodoPago')),
    paymentConditions: optional(root, 'CondicionesDePago'),
    currency: coded('c_Moneda', required(root, 'Moneda')),
    exchangeRate: optional(root, 'TipoCambio'),
    subtotal: required(root, 'SubTotal'),
    discount: optional(root, 'Descuento'),
    total: required(root, 'Total'),
    receiptType: coded('c_TipoDeComprobante', required(root, 'TipoDeComprobante')),
    exportation: coded('c_Exportacion', required(root, 'Exportacion')),
    placeOfIssue: required(root, 'LugarExpedicion'),
    certificateNumber: required(root, 'NoCertificado'),
    seal: required(root, 'Sello'),
    globalInformation: global && {
      periodicity: coded('c_Periodicidad', required(global, 'Periodicidad')),
      months: coded('c_Meses', required(global, 'Meses')),
      year: required(global, 'Año'),
    },
    relatedCfdis: elementChildren(root, CFDI_NS, 'CfdiRelacionados').map((group) => ({
      relationType: coded('c_TipoRelacion', required(group, 'TipoRelacion')),
      uuids: elementChildren(group, CFDI_NS, 'CfdiRelacionado').map((r) => required(r, 'UUID')),
    })),
    issuer: {
      rfc: required(issuer, 'Rfc'),
      name: required(issuer, 'Nombre'),
      taxRegime: coded('c_RegimenFiscal', required(issuer, 'RegimenFiscal')),
    },
    receiver: {
      rfc: required(receiver, 'Rfc'),
      name: required(receiver, 'Nombre'),
      taxZipCode: required(receiver, 'DomicilioFiscalReceptor'),
      foreignResidence: codedOptional('c_Pais', optional(receiver, 'ResidenciaFiscal')),
      foreignTaxId: optional(receiver, 'NumRegIdTrib'),
      taxRegime: coded('c_RegimenFiscal', required(receiver, 'RegimenFiscalReceptor')),
      cfdiUse: coded('c_UsoCFDI', required(receiver, 'UsoCFDI')),
    },
    concepts: elementChildren(requiredChild(root, CFDI_NS, 'Conceptos'), CFDI_NS, 'Concepto').map((c) => {
      const taxes = elementChild(c, CFDI_NS, 'Impuestos');
      return {
        productKey: coded('c_ClaveProdServ', required(c, 'ClaveProdServ')),
        identification: optional(c, 'NoIdentificacion'),
        quantity: required(c, 'Cantidad'),
        unitKey: coded('c_ClaveUnidad', required(c, 'ClaveUnidad')),
        unit: optional(c, 'Unidad'),
        description: required(c, 'Descripcion'),
        unitValue: required(c, 'ValorUnitario'),
        amount: required(c, 'Importe'),
        discount: optional(c, 'Descuento'),
        taxObject: coded('c_ObjetoImp', required(c, 'ObjetoImp')),
        transfers: taxList(taxes, 'Traslados', 'Traslado'),
        withholdings: taxList(taxes, 'Retenciones', 'Retencion'),
      };
    }),
    taxes: documentTaxes && {
      totalTransferred: optional(documentTaxes, 'TotalImpuestosTrasladados'),
      totalWithheld: optional(documentTaxes, 'TotalImpuestosRetenidos'),
      transfers: taxList(documentTaxes, 'Traslados', 'Traslado'),
      withholdings: taxList(documentTaxes, 'Retenciones', 'Retencion'),
    },
    stamp: {
      uuid: required(tfd, 'UUID'),
      stampedAt: required(tfd, 'FechaTimbrado'),
      pacRfc: required(tfd, 'RfcProvCertif'),
      legend: optional(tfd, 'Leyenda'),
      cfdSeal: required(tfd, 'SelloCFD'),
      satCertificateNumber: required(tfd, 'NoCertificadoSAT'),
      satSeal: required(tfd, 'SelloSAT'),
      originalString: tfdOriginalString(tfd),
    },
  };
}
