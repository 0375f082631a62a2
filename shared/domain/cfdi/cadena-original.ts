/**
 * The cadena original of a CFDI 4.0 and of its TimbreFiscalDigital 1.1, computed in code.
 * It is SAT's XSLT (cadenaoriginal_4_0.xslt with Pagos20.xslt, cadenaoriginal_TFD_1_1.xslt) written down as data:
 * each element lists its attributes in the XSLT's order (required or optional) and the child paths it
 * visits. Tests prove it equal, byte for byte, to xsltproc running SAT's stylesheet.
 */
import { attribute, descendants, type XmlElement } from './xml-element.js';

type Step = { attr: string; required: boolean } | { each: readonly string[]; steps: readonly Step[] } | { complementsIn: readonly string[] };

const req = (attr: string): Step => ({ attr, required: true });
const opt = (attr: string): Step => ({ attr, required: false });
const each = (path: string, steps: readonly Step[]): Step => ({ each: path.split('/'), steps });

const TRANSFER: readonly Step[] = [req('Base'), req('Impuesto'), req('TipoFactor'), opt('TasaOCuota'), opt('Importe')];
const WITHHOLDING: readonly Step[] = [req('Base'), req('Impuesto'), req('TipoFactor'), req('TasaOCuota'), req('Importe')];

const CONCEPT: readonly Step[] = [
  req('ClaveProdServ'),
  opt('NoIdentificacion'),
  req('Cantidad'),
  req('ClaveUnidad'),
  opt('Unidad'),
  req('Descripcion'),
  req('ValorUnitario'),
  req('Importe'),
  opt('Descuento'),
  req('ObjetoImp'),
  each('cfdi:Impuestos/cfdi:Traslados/cfdi:Traslado', TRANSFER),
  each('cfdi:Impuestos/cfdi:Retenciones/cfdi:Retencion', WITHHOLDING),
  each('cfdi:ACuentaTerceros', [req('RfcACuentaTerceros'), req('NombreACuentaTerceros'), req('RegimenFiscalACuentaTerceros'), req('DomicilioFiscalACuentaTerceros')]),
  each('cfdi:InformacionAduanera', [req('NumeroPedimento')]),
  each('cfdi:CuentaPredial', [req('Numero')]),
  { complementsIn: ['cfdi:ComplementoConcepto'] },
  each('cfdi:Parte', [
    req('ClaveProdServ'),
    opt('NoIdentificacion'),
    req('Cantidad'),
    opt('Unidad'),
    req('Descripcion'),
    opt('ValorUnitario'),
    opt('Importe'),
    each('cfdi:InformacionAduanera', [req('NumeroPedimento')]),
  ]),
];

const COMPROBANTE: readonly Step[] = [
  req('Version'),
  opt('Serie'),
  opt('Folio'),
  req('Fecha'),
  opt('FormaPago'),
  req('NoCertificado'),
  opt('CondicionesDePago'),
  req('SubTotal'),
  opt('Descuento'),
  req('Moneda'),
  opt('TipoCambio'),
  req('Total'),
  req('TipoDeComprobante'),
  req('Exportacion'),
  opt('MetodoPago'),
  req('LugarExpedicion'),
  opt('Confirmacion'),
  each('cfdi:InformacionGlobal', [req('Periodicidad'), req('Meses'), req('Año')]),
  each('cfdi:CfdiRelacionados', [req('TipoRelacion'), each('cfdi:CfdiRelacionado', [req('UUID')])]),
  each('cfdi:Emisor', [req('Rfc'), req('Nombre'), req('RegimenFiscal'), opt('FacAtrAdquirente')]),
  each('cfdi:Receptor', [req('Rfc'), req('Nombre'), req('DomicilioFiscalReceptor'), opt('ResidenciaFiscal'), opt('NumRegIdTrib'), req('RegimenFiscalReceptor'), req('UsoCFDI')]),
  each('cfdi:Conceptos/cfdi:Concepto', CONCEPT),
  each('cfdi:Impuestos', [
    each('cfdi:Retenciones/cfdi:Retencion', [req('Impuesto'), req('Importe')]),
    opt('TotalImpuestosRetenidos'),
    each('cfdi:Traslados/cfdi:Traslado', TRANSFER),
    opt('TotalImpuestosTrasladados'),
  ]),
  { complementsIn: ['cfdi:Complemento'] },
];

/** Pagos/Pagos20.xslt: Totales, then each Pago with its documents (withholdings before transfers) and ImpuestosP. */
const PAGOS20: readonly Step[] = [
  req('Version'),
  each('pago20:Totales', [
    opt('TotalRetencionesIVA'),
    opt('TotalRetencionesISR'),
    opt('TotalRetencionesIEPS'),
    opt('TotalTrasladosBaseIVA16'),
    opt('TotalTrasladosImpuestoIVA16'),
    opt('TotalTrasladosBaseIVA8'),
    opt('TotalTrasladosImpuestoIVA8'),
    opt('TotalTrasladosBaseIVA0'),
    opt('TotalTrasladosImpuestoIVA0'),
    opt('TotalTrasladosBaseIVAExento'),
    req('MontoTotalPagos'),
  ]),
  each('pago20:Pago', [
    req('FechaPago'),
    req('FormaDePagoP'),
    req('MonedaP'),
    opt('TipoCambioP'),
    req('Monto'),
    opt('NumOperacion'),
    opt('RfcEmisorCtaOrd'),
    opt('NomBancoOrdExt'),
    opt('CtaOrdenante'),
    opt('RfcEmisorCtaBen'),
    opt('CtaBeneficiario'),
    opt('TipoCadPago'),
    opt('CertPago'),
    opt('CadPago'),
    opt('SelloPago'),
    each('pago20:DoctoRelacionado', [
      req('IdDocumento'),
      opt('Serie'),
      opt('Folio'),
      req('MonedaDR'),
      opt('EquivalenciaDR'),
      req('NumParcialidad'),
      req('ImpSaldoAnt'),
      req('ImpPagado'),
      req('ImpSaldoInsoluto'),
      req('ObjetoImpDR'),
      each('pago20:ImpuestosDR/pago20:RetencionesDR/pago20:RetencionDR', [req('BaseDR'), req('ImpuestoDR'), req('TipoFactorDR'), req('TasaOCuotaDR'), req('ImporteDR')]),
      each('pago20:ImpuestosDR/pago20:TrasladosDR/pago20:TrasladoDR', [req('BaseDR'), req('ImpuestoDR'), req('TipoFactorDR'), opt('TasaOCuotaDR'), opt('ImporteDR')]),
    ]),
    each('pago20:ImpuestosP', [
      each('pago20:RetencionesP/pago20:RetencionP', [req('ImpuestoP'), req('ImporteP')]),
      each('pago20:TrasladosP/pago20:TrasladoP', [req('BaseP'), req('ImpuestoP'), req('TipoFactorP'), opt('TasaOCuotaP'), opt('ImporteP')]),
    ]),
  ]),
];

/** Complements whose cadena we write; the TFD contributes nothing to the CFDI's own cadena. */
const COMPLEMENTS: Record<string, readonly Step[]> = {
  'tfd:TimbreFiscalDigital': [],
  'pago20:Pagos': PAGOS20,
};

const TFD: readonly Step[] = [req('Version'), req('UUID'), req('FechaTimbrado'), req('RfcProvCertif'), opt('Leyenda'), req('SelloCFD'), req('NoCertificadoSAT')];

export class UnsupportedComplement extends Error {
  constructor(readonly element: string) {
    super(`no cadena original rule for complement ${element}`);
    this.name = 'UnsupportedComplement';
  }
}

/** XPath's normalize-space: trim XML whitespace and collapse inner runs to one space. */
function normalizeSpace(value: string): string {
  return value.replace(/[\t\n\r ]+/g, ' ').trim();
}

function run(node: XmlElement, steps: readonly Step[], out: string[]): void {
  for (const step of steps) {
    if ('attr' in step) {
      const value = attribute(node, step.attr);
      // The XSLT's Requerido writes a separator even for a missing attribute; Opcional only for a present one.
      if (value !== undefined || step.required) out.push('|', normalizeSpace(value ?? ''));
    } else if ('each' in step) {
      for (const n of descendants(node, step.each)) run(n, step.steps, out);
    } else {
      for (const complement of descendants(node, step.complementsIn)) {
        for (const c of complement.children) {
          const rule = COMPLEMENTS[c.name];
          if (!rule) throw new UnsupportedComplement(c.name);
          run(c, rule, out);
        }
      }
    }
  }
}

export function cadenaOriginal(comprobante: XmlElement): string {
  const out: string[] = ['|'];
  run(comprobante, COMPROBANTE, out);
  out.push('||');
  return out.join('');
}

export function tfdCadenaOriginal(timbre: XmlElement): string {
  const out: string[] = ['|'];
  run(timbre, TFD, out);
  out.push('||');
  return out.join('');
}
