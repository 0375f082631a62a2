/**
 * What the printed representation of a stamped CFDI 4.0 shows, read from its XML: every value is the
 * text exactly as written in the document (amounts are never reformatted), plus the SAT catalog
 * descriptions of its keys and the TFD's cadena original.
 */
import { CFDI_NAMESPACE } from '../domain/cfdi/build-cfdi.js';
import { tfdCadenaOriginal } from '../domain/cfdi/cadena-original.js';
import { parseXml, XmlParseError } from '../domain/cfdi/parse-xml.js';
import { attribute, child, children, descendants, type XmlElement } from '../domain/cfdi/xml-element.js';
import type { CatalogName, SatCatalogs } from '../sat/catalogs.js';

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

/** A pago20:DoctoRelacionado: an invoice the payment pays, with its installment and balances. */
export interface InvoicePdfPaidDocument {
  uuid: string;
  series?: string;
  folio?: string;
  currency: Coded;
  equivalence?: string;
  installment: string;
  previousBalance: string;
  amountPaid: string;
  remainingBalance: string;
}

/** A pago20:Pago: one payment received. */
export interface InvoicePdfPayment {
  /** FechaPago. */
  date: string;
  form: Coded;
  currency: Coded;
  exchangeRate?: string;
  amount: string;
  operationNumber?: string;
  documents: InvoicePdfPaidDocument[];
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
  /** A type P's Pagos 2.0 complement: MontoTotalPagos (MXN) and each payment. */
  payments?: { totalAmount: string; items: InvoicePdfPayment[] };
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

function required(e: XmlElement, name: string): string {
  const value = attribute(e, name);
  if (value === undefined) throw new Error(`invalid CFDI 4.0: ${e.name} has no ${name}`);
  return value;
}

function requiredChild(parent: XmlElement, name: string): XmlElement {
  const found = child(parent, name);
  if (!found) throw new Error(`invalid CFDI 4.0: ${parent.name} has no ${name}`);
  return found;
}

function parseDocument(xml: string): XmlElement {
  let root: XmlElement;
  try {
    root = parseXml(xml);
  } catch (err) {
    throw new Error(`not a stamped CFDI 4.0: the XML is not well-formed (${err instanceof XmlParseError ? err.message : 'unreadable'})`, { cause: err });
  }
  if (root.name !== 'cfdi:Comprobante' || attribute(root, 'xmlns:cfdi') !== CFDI_NAMESPACE || attribute(root, 'Version') !== '4.0') {
    throw new Error('not a stamped CFDI 4.0: the root is not a cfdi:Comprobante Version 4.0');
  }
  return root;
}

export function invoicePdfDataFromXml(xml: string, catalogs: SatCatalogs): InvoicePdfData {
  const root = parseDocument(xml);
  const tfd = descendants(root, ['cfdi:Complemento', 'tfd:TimbreFiscalDigital'])[0];
  if (!tfd) throw new Error('not a stamped CFDI 4.0: it has no tfd:TimbreFiscalDigital');
  if (attribute(tfd, 'Version') !== '1.1') throw new Error('not a stamped CFDI 4.0: the TimbreFiscalDigital is not Version 1.1');

  const coded = (catalog: CatalogName, code: string): Coded => ({ code, description: catalogs.description(catalog, code) });
  const codedOptional = (catalog: CatalogName, code: string | undefined): Coded | undefined => (code === undefined ? undefined : coded(catalog, code));
  const taxOf = (e: XmlElement): InvoicePdfTax => ({
    base: attribute(e, 'Base'),
    tax: coded('c_Impuesto', required(e, 'Impuesto')),
    factor: attribute(e, 'TipoFactor'),
    rate: attribute(e, 'TasaOCuota'),
    amount: attribute(e, 'Importe'),
  });
  const taxList = (taxes: XmlElement | undefined, group: string, item: string): InvoicePdfTax[] => (taxes ? descendants(taxes, [`cfdi:${group}`, `cfdi:${item}`]).map(taxOf) : []);

  const issuer = requiredChild(root, 'cfdi:Emisor');
  const receiver = requiredChild(root, 'cfdi:Receptor');
  const global = child(root, 'cfdi:InformacionGlobal');
  const documentTaxes = child(root, 'cfdi:Impuestos');
  const pagos = descendants(root, ['cfdi:Complemento', 'pago20:Pagos'])[0];

  return {
    series: attribute(root, 'Serie'),
    folio: attribute(root, 'Folio'),
    date: required(root, 'Fecha'),
    paymentForm: codedOptional('c_FormaPago', attribute(root, 'FormaPago')),
    paymentMethod: codedOptional('c_MetodoPago', attribute(root, 'MetodoPago')),
    paymentConditions: attribute(root, 'CondicionesDePago'),
    currency: coded('c_Moneda', required(root, 'Moneda')),
    exchangeRate: attribute(root, 'TipoCambio'),
    subtotal: required(root, 'SubTotal'),
    discount: attribute(root, 'Descuento'),
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
    relatedCfdis: children(root, 'cfdi:CfdiRelacionados').map((group) => ({
      relationType: coded('c_TipoRelacion', required(group, 'TipoRelacion')),
      uuids: children(group, 'cfdi:CfdiRelacionado').map((r) => required(r, 'UUID')),
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
      foreignResidence: codedOptional('c_Pais', attribute(receiver, 'ResidenciaFiscal')),
      foreignTaxId: attribute(receiver, 'NumRegIdTrib'),
      taxRegime: coded('c_RegimenFiscal', required(receiver, 'RegimenFiscalReceptor')),
      cfdiUse: coded('c_UsoCFDI', required(receiver, 'UsoCFDI')),
    },
    concepts: children(requiredChild(root, 'cfdi:Conceptos'), 'cfdi:Concepto').map((c) => {
      const taxes = child(c, 'cfdi:Impuestos');
      return {
        productKey: coded('c_ClaveProdServ', required(c, 'ClaveProdServ')),
        identification: attribute(c, 'NoIdentificacion'),
        quantity: required(c, 'Cantidad'),
        unitKey: coded('c_ClaveUnidad', required(c, 'ClaveUnidad')),
        unit: attribute(c, 'Unidad'),
        description: required(c, 'Descripcion'),
        unitValue: required(c, 'ValorUnitario'),
        amount: required(c, 'Importe'),
        discount: attribute(c, 'Descuento'),
        taxObject: coded('c_ObjetoImp', required(c, 'ObjetoImp')),
        transfers: taxList(taxes, 'Traslados', 'Traslado'),
        withholdings: taxList(taxes, 'Retenciones', 'Retencion'),
      };
    }),
    taxes: documentTaxes && {
      totalTransferred: attribute(documentTaxes, 'TotalImpuestosTrasladados'),
      totalWithheld: attribute(documentTaxes, 'TotalImpuestosRetenidos'),
      transfers: taxList(documentTaxes, 'Traslados', 'Traslado'),
      withholdings: taxList(documentTaxes, 'Retenciones', 'Retencion'),
    },
    payments: pagos && {
      totalAmount: required(requiredChild(pagos, 'pago20:Totales'), 'MontoTotalPagos'),
      items: children(pagos, 'pago20:Pago').map((p) => ({
        date: required(p, 'FechaPago'),
        form: coded('c_FormaPago', required(p, 'FormaDePagoP')),
        currency: coded('c_Moneda', required(p, 'MonedaP')),
        exchangeRate: attribute(p, 'TipoCambioP'),
        amount: required(p, 'Monto'),
        operationNumber: attribute(p, 'NumOperacion'),
        documents: children(p, 'pago20:DoctoRelacionado').map((d) => ({
          uuid: required(d, 'IdDocumento'),
          series: attribute(d, 'Serie'),
          folio: attribute(d, 'Folio'),
          currency: coded('c_Moneda', required(d, 'MonedaDR')),
          equivalence: attribute(d, 'EquivalenciaDR'),
          installment: required(d, 'NumParcialidad'),
          previousBalance: required(d, 'ImpSaldoAnt'),
          amountPaid: required(d, 'ImpPagado'),
          remainingBalance: required(d, 'ImpSaldoInsoluto'),
        })),
      })),
    },
    stamp: {
      uuid: required(tfd, 'UUID'),
      stampedAt: required(tfd, 'FechaTimbrado'),
      pacRfc: required(tfd, 'RfcProvCertif'),
      legend: attribute(tfd, 'Leyenda'),
      cfdSeal: required(tfd, 'SelloCFD'),
      satCertificateNumber: required(tfd, 'NoCertificadoSAT'),
      satSeal: required(tfd, 'SelloSAT'),
      originalString: tfdCadenaOriginal(tfd),
    },
  };
}
