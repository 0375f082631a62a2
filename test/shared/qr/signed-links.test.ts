import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { loadConfig } from '../../../shared/platform/config.js';
import { signQrToken, verifyQrLink } from '../../../shared/qr/qr-link.js';
import { signedImageUrl, verifyImageUrl } from '../../../shared/qr/signed-image-url.js';
import { invoiceFileUrl, verifyInvoiceFileUrl } from '../../../shared/invoices/invoice-links.js';
import { exportDownloadUrl, verifyExportDownloadUrl } from '../../../shared/books/export-links.js';

/** The same bytes spelled differently: the last of 22 Base64 characters carries 4 bits decoding ignores. */
function respelled(text: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const last = alphabet.indexOf(text.at(-1)!);
  return text.slice(0, -1) + alphabet[last ^ 1]!;
}

describe('signed links', () => {
  it('a QR link opens with its own MAC only, not with another spelling of the same bytes', () => {
    const params = signQrToken('AAAAAAAAAAAAAAAAAAAAAA', 'key');
    expect(verifyQrLink(params, 'key')).to.deep.equal({ ok: true, token: params.t });
    const twin = respelled(params.m);
    expect(Buffer.from(twin, 'base64url').equals(Buffer.from(params.m, 'base64url'))).to.equal(true);
    expect(verifyQrLink({ ...params, m: twin }, 'key')).to.deep.equal({ ok: false, reason: 'bad_signature' });
    expect(verifyQrLink(params, 'other key')).to.deep.equal({ ok: false, reason: 'bad_signature' });
  });

  it('after a QR_HMAC_KEY rotation, printed links open with the previous key until it is removed; new ones use the new key', () => {
    const printed = signQrToken('BBBBBBBBBBBBBBBBBBBBBB', 'old key');
    const fresh = signQrToken('CCCCCCCCCCCCCCCCCCCCCC', 'new key');
    expect([printed.v, fresh.v]).to.deep.equal(['1', '1']);
    expect(verifyQrLink(printed, ['new key', 'old key'])).to.deep.equal({ ok: true, token: printed.t });
    expect(verifyQrLink(fresh, ['new key', 'old key'])).to.deep.equal({ ok: true, token: fresh.t });
    expect(verifyQrLink(printed, ['new key'])).to.deep.equal({ ok: false, reason: 'bad_signature' });
    expect(verifyQrLink({ ...printed, m: respelled(printed.m) }, ['new key', 'old key'])).to.deep.equal({ ok: false, reason: 'bad_signature' });
    expect(loadConfig({ NODE_ENV: 'development', QR_HMAC_PREVIOUS_KEYS: ' old key , older key ,' }).qrHmacPreviousKeys).to.deep.equal(['old key', 'older key']);
  });

  it('an image URL likewise', () => {
    const expires = new Date(Date.now() + 60_000);
    const url = new URL(signedImageUrl('https://x.test', 'tra_1', expires, 'key'));
    const exp = url.searchParams.get('exp');
    const sig = url.searchParams.get('sig')!;
    expect(verifyImageUrl('tra_1', exp, sig, 'key')).to.deep.equal({ ok: true });
    expect(verifyImageUrl('tra_1', exp, respelled(sig), 'key')).to.deep.equal({ ok: false, reason: 'bad_signature' });
  });

  it('MACs are HMAC-SHA256 under the key as UTF-8 bytes, whatever the key spells (each key is imported once per process)', () => {
    for (const key of ['key', 'clave ñ €', 'key']) {
      const mac = (message: string) => createHmac('sha256', Buffer.from(key, 'utf8')).update(message).digest().subarray(0, 16).toString('base64url');
      expect(signQrToken('DDDDDDDDDDDDDDDDDDDDDD', key).m, key).to.equal(mac('v1.DDDDDDDDDDDDDDDDDDDDDD'));
      const expires = new Date('2030-01-01T00:00:00Z');
      const sig = new URL(signedImageUrl('https://x.test', 'tra_1', expires, key)).searchParams.get('sig');
      expect(sig, key).to.equal(mac(`qr-image.tra_1.${expires.getTime() / 1000}`));
    }
  });

  it('every signed link takes its exp in one spelling only: leading zeros, a sign or spaces are a bad signature (issue #39)', () => {
    const expires = new Date(Date.now() + 60_000);
    const links = [
      { url: signedImageUrl('https://x.test', 'tra_1', expires, 'key'), verify: (exp: string, sig: string) => verifyImageUrl('tra_1', exp, sig, 'key') },
      { url: invoiceFileUrl('https://x.test', 'U-1', 'xml', 'key'), verify: (exp: string, sig: string) => verifyInvoiceFileUrl('U-1', 'xml', exp, sig, 'key') },
      { url: exportDownloadUrl('https://x.test', 'exp_1', 'key', expires), verify: (exp: string, sig: string) => verifyExportDownloadUrl('exp_1', exp, sig, 'key') },
    ];
    for (const { url, verify } of links) {
      const params = new URL(url).searchParams;
      const [exp, sig] = [params.get('exp')!, params.get('sig')!];
      expect(verify(exp, sig), url).to.deep.equal({ ok: true });
      for (const respelt of [`0${exp}`, `00${exp}`, `+${exp}`, ` ${exp}`, `${exp}.0`]) expect(verify(respelt, sig), respelt).to.deep.equal({ ok: false, reason: 'bad_signature' });
    }
  });
});
