import { expect } from 'chai';
import { qrCreateRequestSchema } from '../../shared/qr/qr-request-schema.js';
import { call } from '../helpers/http.js';

describe('GET /openapi.json', () => {
  it('publishes the contract with the very request schema the API validates with', async () => {
    const res = await call('GET', '/openapi.json');
    expect(res.status).to.equal(200);
    expect(res.body.openapi).to.equal('3.1.0');
    expect(res.body.components.schemas.QrCreateRequest).to.deep.equal(JSON.parse(JSON.stringify(qrCreateRequestSchema)));
    expect(Object.keys(res.body.paths['/v1/qrs'].post.responses)).to.include.members(['201', '400', '401', '404', '409', '422']);
  });
});
