import { expect } from 'chai';
import { loadConfig } from '../../../shared/platform/config.js';

const PRODUCTION = {
  NODE_ENV: 'production',
  QR_HMAC_KEY: 'q'.repeat(32),
  URL_SIGNING_KEY: 'u'.repeat(32),
  ENCRYPTION_KEY: 'e'.repeat(64),
  CSF_BASE_URL: 'https://csf.example.com',
  PAC_BASE_URL: 'https://services.sw.com.mx',
  SMTP_URL: 'smtp://mail.example.com',
};

describe("the PAC's credentials in the configuration: the portal's token, or a user and password", () => {
  it('production takes either kind, and refuses none', () => {
    expect(loadConfig({ ...PRODUCTION, PAC_TOKEN: 'portal.token.value' }).pacToken).to.equal('portal.token.value');
    expect(loadConfig({ ...PRODUCTION, PAC_USER: 'facturacion@example.com', PAC_PASSWORD: 'secret' }).pacUser).to.equal('facturacion@example.com');
    expect(() => loadConfig(PRODUCTION)).to.throw('PAC_TOKEN (or PAC_USER and PAC_PASSWORD) must be set in production');
  });

  it('refuses both kinds at once, and a user without a password, naming no secret', () => {
    for (const mode of ['production', 'development']) {
      const env = { ...PRODUCTION, NODE_ENV: mode };
      expect(() => loadConfig({ ...env, PAC_TOKEN: 'the-token', PAC_USER: 'u', PAC_PASSWORD: 'the-password' }), mode)
        .to.throw('set PAC_TOKEN or PAC_USER and PAC_PASSWORD, not both')
        .with.property('message')
        .that.does.not.contain('the-token')
        .and.not.contain('the-password');
      expect(() => loadConfig({ ...env, PAC_USER: 'u' }), mode).to.throw('PAC_USER and PAC_PASSWORD are set together or not at all');
      expect(() => loadConfig({ ...env, PAC_PASSWORD: 'p' }), mode).to.throw('PAC_USER and PAC_PASSWORD are set together or not at all');
    }
  });
});
