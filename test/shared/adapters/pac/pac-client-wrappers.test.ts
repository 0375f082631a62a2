import { expect } from 'chai';
import { pino } from 'pino';
import type { PacClient, PacStamp, PacStampOptions } from '../../../../shared/adapters/pac/pac-client.js';
import { measuredPacClient } from '../../../../shared/adapters/pac/measured-pac-client.js';
import { alarmedPacClient } from '../../../../shared/adapters/pac/pac-credentials-alarm.js';
import { harness } from '../../../helpers/harness.js';

describe("issue #38: the PAC client's wrappers pass a stamp's options on", () => {
  it('the customid reaches the PAC through the metrics and the credentials alarm, as the workers compose them', async () => {
    const seen: PacStampOptions[] = [];
    const stamp: PacStamp = { uuid: 'U', xml: '<x/>', stampedAt: '2026-11-28T10:00:00', satCertificateNumber: '1', previouslyStamped: false };
    const spy: PacClient = {
      stamp: (_xml, options) => {
        seen.push(options);
        return Promise.resolve(stamp);
      },
      cancel: () => Promise.reject(new Error('not used')),
      status: () => Promise.reject(new Error('not used')),
    };
    // A customid dropped on the way would let a re-sealed document become a second CFDI (workers/stamp-invoice.ts).
    const composed = alarmedPacClient(measuredPacClient(spy), harness().redis, pino({ level: 'silent' }));
    expect(await composed.stamp('<cfdi/>', { customId: 'inv_1.2' })).to.equal(stamp);
    expect(seen).to.deep.equal([{ customId: 'inv_1.2' }]);
  });
});
