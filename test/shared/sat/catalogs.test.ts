import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { satCatalogs } from '../../../shared/sat/catalogs.js';

const TODAY = '2026-11-23';

describe('SAT catalogs', () => {
  const catalogs = satCatalogs();

  it('ship as built from ../shared/sat/catalogs by the script (data/sat is up to date)', function () {
    this.timeout(60_000);
    // The SAT sources live outside the repository (../shared/sat, see its README); without them there is nothing to compare.
    if (!existsSync('../shared/sat/catalogs')) this.skip();
    const out = mkdtempSync(join(tmpdir(), 'catalogs-'));
    try {
      execFileSync(process.execPath, ['--import', 'tsx', 'scripts/build-catalogs.ts', '../shared/sat/catalogs', out], { stdio: 'pipe' });
      for (const file of ['catalogs.json', 'c_ClaveProdServ.tsv']) {
        expect(readFileSync(join(out, file)).equals(readFileSync(join('data', 'sat', file))), file).to.equal(true);
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it('find keys and descriptions of every catalog the QR core uses', () => {
    expect(catalogs.description('c_FormaPago', '04')).to.equal('Tarjeta de crédito');
    expect(catalogs.description('c_MetodoPago', 'PPD')).to.equal('Pago en parcialidades o diferido');
    expect(catalogs.description('c_TipoDeComprobante', 'I')).to.equal('Ingreso');
    expect(catalogs.description('c_ClaveUnidad', 'LTR')).to.equal('Litro');
    expect(catalogs.description('c_ClaveProdServ', '01010101')).to.equal('No existe en el catálogo');
    expect(catalogs.description('c_ClaveProdServ', '50202301')).to.equal('Agua');
    expect(catalogs.description('c_ClaveProdServ', '0101010')).to.equal(undefined);
    expect(catalogs.description('c_ClaveProdServ', '95141904')).to.be.a('string');
    expect(catalogs.description('c_ClaveProdServ', '99999999')).to.equal(undefined);
    expect(catalogs.description('c_ObjetoImp', '02')).to.equal('Sí objeto de impuesto.');
    expect(catalogs.currencyDecimals('MXN')).to.equal(2);
    expect(catalogs.currencyDecimals('CLF')).to.equal(4);
  });

  it('answer every product key as its line says, also after more distinct keys than the decoded ones kept (4,096)', () => {
    const lines = readFileSync(new URL('../../../data/sat/c_ClaveProdServ.tsv', import.meta.url), 'utf8')
      .split('\n')
      .slice(0, 5000);
    const read = () => lines.map((line) => catalogs.description('c_ClaveProdServ', line.split('\t')[0]!));
    const expected = lines.map((line) => line.split('\t')[1]);
    expect(read()).to.deep.equal(expected);
    expect(read(), 'again, the first keys evicted and decoded anew').to.deep.equal(expected);
  });

  it('count validity dates: a key is refused before it starts and after it ends', () => {
    expect(catalogs.check('c_ObjetoImp', '06', '2024-12-12')).to.deep.include({ ok: false, reason: 'not_in_force' });
    expect(catalogs.check('c_ObjetoImp', '06', '2024-12-13').ok).to.equal(true);
    expect(catalogs.check('c_ClaveProdServ', '15101506', '2020-01-15').ok).to.equal(true);
    expect(catalogs.check('c_ClaveProdServ', '15101506', '2020-01-16')).to.deep.include({ ok: false, reason: 'not_in_force' });
    expect(catalogs.check('c_ObjetoImp', '99', TODAY)).to.deep.equal({ ok: false, reason: 'unknown' });
    const ended = [...catalogs.keys('c_RegimenFiscal', '2000-01-01'), ...catalogs.keys('c_UsoCFDI', '2000-01-01')];
    expect(ended).to.have.length(0);
  });

  it('know which taxes, factors and rates c_Impuesto and c_TasaOCuota allow', () => {
    expect(catalogs.taxAllows('001', 'Traslado')).to.equal(false);
    expect(catalogs.taxAllows('001', 'Retencion')).to.equal(true);
    expect(catalogs.rateAllowed('002', 'Tasa', 'Traslado', '0.160000', TODAY)).to.equal(true);
    expect(catalogs.rateAllowed('002', 'Tasa', 'Traslado', '0.080000', TODAY)).to.equal(true);
    expect(catalogs.rateAllowed('002', 'Tasa', 'Traslado', '0.150000', TODAY)).to.equal(false);
    expect(catalogs.rateAllowed('002', 'Tasa', 'Retencion', '0.106667', TODAY)).to.equal(true);
    expect(catalogs.rateAllowed('002', 'Tasa', 'Retencion', '0.170000', TODAY)).to.equal(false);
    expect(catalogs.rateAllowed('001', 'Tasa', 'Retencion', '0.012500', TODAY)).to.equal(true);
    expect(catalogs.factorAllowed('002', 'Cuota', 'Traslado', TODAY)).to.equal(false);
    expect(catalogs.factorAllowed('003', 'Cuota', 'Traslado', TODAY)).to.equal(true);
    expect(catalogs.factorAllowed('003', 'Cuota', 'Traslado', '2025-06-01')).to.equal(false);
  });

  it('describe regimes and CFDI uses by person type', () => {
    expect(catalogs.regime('601')).to.deep.include({ naturalPerson: false, legalPerson: true });
    expect(catalogs.regime('626')).to.deep.include({ naturalPerson: true, legalPerson: true });
    expect(catalogs.cfdiUse('G03')?.receiverRegimes).to.include('601');
    expect(catalogs.cfdiUse('D01')).to.deep.include({ naturalPerson: true, legalPerson: false });
  });
});
