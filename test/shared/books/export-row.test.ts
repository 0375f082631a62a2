import { expect } from 'chai';
import { accountingFacts } from '../../../shared/domain/cfdi/accounting-facts.js';
import { CSV_BOM, csvField } from '../../../shared/books/export-row.js';

/** The parts of a CFDI accountingFacts reads, taxes written with trailing zeros as SAT's rules have them. */
const CFDI = `<?xml version="1.0" encoding="UTF-8"?>
<cfdi:Comprobante xmlns:cfdi="http://www.sat.gob.mx/cfd/4" Version="4.0" Fecha="2026-11-28T10:15:00" SubTotal="455.00" Moneda="MXN" Total="527.80" TipoDeComprobante="I">
<cfdi:Receptor Rfc="URE180429TM6" Nombre="UNIVERSIDAD ROBOTICA ESPAÑOLA" UsoCFDI="G03"/>
<cfdi:Impuestos TotalImpuestosTrasladados="72.80"><cfdi:Traslados>
<cfdi:Traslado Base="455.00" Impuesto="002" TipoFactor="Tasa" TasaOCuota="0.160000" Importe="72.80"/>
</cfdi:Traslados></cfdi:Impuestos>
</cfdi:Comprobante>`;

describe('the books export row (issue #39: what an accountant opens)', () => {
  it('writes each tax as the CFDI writes it: 72.80, not 72.8', () => {
    expect(accountingFacts(CFDI).taxes.iva_transferred).to.equal('72.80');
    const two = CFDI.replace('</cfdi:Traslados>', '<cfdi:Traslado Base="100" Impuesto="002" TipoFactor="Tasa" TasaOCuota="0.160000" Importe="16"/></cfdi:Traslados>');
    expect(accountingFacts(two).taxes.iva_transferred).to.equal('88.80');
  });

  it('neutralises a formula wherever a spreadsheet may start a cell: the start, after ; or a tab or a line break', () => {
    expect(csvField('=1+1')).to.equal("'=1+1");
    expect(csvField('X;=1+1')).to.equal("X;'=1+1");
    expect(csvField('X;+1;-A;@B')).to.equal("X;'+1;'-A;'@B");
    expect(csvField('A\t=B')).to.equal("A\t'=B");
    expect(csvField('A\n=B')).to.equal(`"A\n'=B"`);
    expect(csvField('-1.50')).to.equal('-1.50');
    expect(csvField('A-B;C=D')).to.equal('A-B;C=D');
    expect(csvField('FERRETERÍA "EL CLAVO", DEL NORTE')).to.equal('"FERRETERÍA ""EL CLAVO"", DEL NORTE"');
  });

  it('opens the CSV with the UTF-8 byte order mark', () => {
    expect(Buffer.from(CSV_BOM, 'utf8')).to.deep.equal(Buffer.from([0xef, 0xbb, 0xbf]));
  });
});
