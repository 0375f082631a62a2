import { expect } from 'chai';
import { issuerChangesFromCsf } from '../../../../shared/adapters/csf/issuer-changes-from-csf.js';
import { satCatalogs } from '../../../../shared/sat/catalogs.js';

const today = '2026-11-23';
const csf = (regimes: string[], rfc = 'CACX7605101P8') => ({
  rfc,
  legalName: ' XOCHILT  CASAS CHAVEZ ',
  zip: '36257',
  status: 'ACTIVO',
  regimes: regimes.map((code) => ({ code })),
});

describe('issuer changes from a CSF', () => {
  const catalogs = satCatalogs();
  const issuer = { rfc: 'CACX7605101P8', taxRegimeCode: '626' };

  it('keeps the current regime when SAT still lists it, and takes name and zip as SAT writes them', () => {
    expect(issuerChangesFromCsf(issuer, csf(['612', '626']), catalogs, today)).to.deep.equal({
      ok: true,
      changes: { businessName: 'XOCHILT CASAS CHAVEZ', taxRegimeCode: '626', zip: '36257' },
    });
  });

  it('moves to the first listed regime that fits the person type when the current one is gone', () => {
    // 601 is for personas morales only; 612 fits this persona física.
    expect(issuerChangesFromCsf(issuer, csf(['601', '612']), catalogs, today)).to.deep.include({ ok: true });
    expect((issuerChangesFromCsf(issuer, csf(['601', '612']), catalogs, today) as { changes: { taxRegimeCode: string } }).changes.taxRegimeCode).to.equal('612');
  });

  it('refuses a CSF of another RFC or without a usable regime', () => {
    expect(issuerChangesFromCsf(issuer, csf(['612'], 'EKU9003173C9'), catalogs, today)).to.deep.include({ ok: false });
    expect(issuerChangesFromCsf(issuer, csf(['601']), catalogs, today)).to.deep.include({ ok: false });
    expect(issuerChangesFromCsf(issuer, csf([]), catalogs, today)).to.deep.include({ ok: false });
  });
});
