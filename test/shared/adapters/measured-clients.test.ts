import { expect } from 'chai';
import { CsfNotFound, CsfUnavailable, type CsfClient } from '../../../shared/adapters/csf/csf-client.js';
import { measuredCsfClient } from '../../../shared/adapters/csf/measured-csf-client.js';
import { measuredPacClient } from '../../../shared/adapters/pac/measured-pac-client.js';
import { registry } from '../../../shared/platform/metrics/registry.js';
import { PacRefused, PacUnavailable, type PacClient } from '../../../shared/adapters/pac/pac-client.js';
import { sampleValue } from '../../helpers/metrics-text.js';

/** How much each labelled count of `name` grew while `run` ran. */
async function growth(name: string, labels: Record<string, string>[], run: () => Promise<void>): Promise<number[]> {
  const before = await registry.metrics();
  await run();
  const after = await registry.metrics();
  return labels.map((l) => sampleValue(after, `${name}_count`, l) - sampleValue(before, `${name}_count`, l));
}

describe('measured PAC and CSF clients', () => {
  it('time every PAC operation by outcome and pass answers and errors through unchanged', async () => {
    const refusal = new PacRefused('CFDI40145', 'name mismatch');
    const pac: PacClient = {
      stamp: async () => {
        throw refusal;
      },
      cancel: async () => {
        throw new PacUnavailable('PAC answered 503');
      },
      status: async () => ({
        query: 'found',
        code: 'S - Comprobante obtenido satisfactoriamente.',
        state: 'Vigente',
        cancellable: 'Cancelable sin aceptación',
        cancellationStatus: '',
      }),
    };
    const measured = measuredPacClient(pac);
    const grown = await growth(
      'autofactura_pac_request_duration_seconds',
      [
        { operation: 'stamp', outcome: 'refused' },
        { operation: 'cancel', outcome: 'unavailable' },
        { operation: 'status', outcome: 'ok' },
      ],
      async () => {
        expect(await measured.stamp('<cfdi/>', {}).catch((err: unknown) => err)).to.equal(refusal);
        expect(await measured.cancel({} as never).catch((err: unknown) => err)).to.be.instanceOf(PacUnavailable);
        expect(await measured.status({ uuid: 'u', issuerRfc: 'a', receptorRfc: 'b', total: '1', seal: 's' })).to.include({ state: 'Vigente' });
      },
    );
    expect(grown).to.deep.equal([1, 1, 1]);
  });

  it('time every CSF call by outcome', async () => {
    const answers: Array<() => Promise<never>> = [
      async () => {
        throw new CsfNotFound('unknown');
      },
      async () => {
        throw new CsfUnavailable('503');
      },
      async () => {
        throw new TypeError('a bug');
      },
    ];
    const csf: CsfClient = { fetch: () => answers.shift()!() };
    const measured = measuredCsfClient(csf);
    const grown = await growth('autofactura_csf_request_duration_seconds', [{ outcome: 'not_found' }, { outcome: 'unavailable' }, { outcome: 'error' }], async () => {
      for (let i = 0; i < 3; i++) await measured.fetch('EKU9003173C9', '12345678901').catch(() => undefined);
    });
    expect(grown).to.deep.equal([1, 1, 1]);
  });
});
