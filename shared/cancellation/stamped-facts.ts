import { parseXml } from '../domain/cfdi/parse-xml.js';
import { attribute, child } from '../domain/cfdi/xml-element.js';

/** What cancelling a stamped CFDI needs to know about it, read from the XML as stamped. */
export interface StampedFacts {
  type: string;
  total: string;
  exchangeRate: string;
  issuerRfc: string;
  issuerName: string;
  receptorRfc: string;
  currency: string;
  /** Sello: SAT's status query carries its last 8 characters. */
  seal: string;
  /** UUIDs this CFDI relates to, by TipoRelacion. */
  related: { type: string; uuid: string }[];
}

export function stampedFacts(xml: string): StampedFacts {
  const comprobante = parseXml(xml);
  const related = comprobante.children
    .filter((c) => c.name === 'cfdi:CfdiRelacionados')
    .flatMap((group) =>
      group.children
        .filter((c) => c.name === 'cfdi:CfdiRelacionado')
        .map((c) => ({ type: attribute(group, 'TipoRelacion') ?? '', uuid: (attribute(c, 'UUID') ?? '').toUpperCase() })),
    );
  return {
    type: attribute(comprobante, 'TipoDeComprobante') ?? '',
    total: attribute(comprobante, 'Total') ?? '0',
    exchangeRate: attribute(comprobante, 'TipoCambio') ?? '1',
    issuerRfc: attribute(child(comprobante, 'cfdi:Emisor') ?? comprobante, 'Rfc') ?? '',
    issuerName: attribute(child(comprobante, 'cfdi:Emisor') ?? comprobante, 'Nombre') ?? '',
    currency: attribute(comprobante, 'Moneda') ?? '',
    seal: attribute(comprobante, 'Sello') ?? '',
    receptorRfc: attribute(child(comprobante, 'cfdi:Receptor') ?? comprobante, 'Rfc') ?? '',
    related,
  };
}
