import { expect } from 'chai';
import { buildCfdi } from '../../../../shared/domain/cfdi/build-cfdi.js';
import { checkCfdiAmounts } from '../../../../shared/domain/cfdi/check-cfdi-amounts.js';
import { descendants, setAttribute, type XmlElement } from '../../../../shared/domain/cfdi/xml-element.js';
import { generateCfdiInput } from '../../../fixtures/cfdi/generate-cfdi-input.js';

function built(): XmlElement {
  // Seed 1 has two concepts with IVA 16 %: enough to tamper with each rule.
  return buildCfdi(generateCfdiInput(1)).comprobante;
}

describe('checkCfdiAmounts (Anexo 20 arithmetic before sealing)', () => {
  it('finds nothing wrong in a built document', () => {
    expect(checkCfdiAmounts(built())).to.deep.equal([]);
  });

  it('reports a concept Importe outside Cantidad × ValorUnitario as CFDI40167', () => {
    const doc = built();
    const concept = descendants(doc, ['cfdi:Conceptos', 'cfdi:Concepto'])[0]!;
    setAttribute(concept, 'Importe', '999999.99');
    const codes = checkCfdiAmounts(doc).map((f) => [f.code, f.satCode, f.path]);
    expect(codes).to.deep.include(['concept_amount_out_of_limits', 'CFDI40167', 'Conceptos/Concepto[1]/@Importe']);
    expect(codes.map((c) => c[0])).to.include('subtotal_mismatch');
  });

  it('reports a tax Importe off by one cent beyond the tolerance, and a wrong Total', () => {
    const doc = built();
    const transfer = descendants(doc, ['cfdi:Conceptos', 'cfdi:Concepto', 'cfdi:Impuestos', 'cfdi:Traslados', 'cfdi:Traslado']).find((t) =>
      t.attributes.some(([k]) => k === 'Importe'),
    );
    expect(transfer, 'seed 1 has a transferred tax').to.not.equal(undefined);
    setAttribute(transfer!, 'Importe', '0.01');
    setAttribute(doc, 'Total', '1.00');
    const codes = checkCfdiAmounts(doc).map((f) => f.satCode);
    expect(codes).to.include('CFDI40215');
    expect(codes).to.include('CFDI40119');
  });
});
