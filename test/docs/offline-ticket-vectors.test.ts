import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { offlineTicket } from '../../clients/typescript/src/offline-ticket.js';
import { formatShortCode } from '../../shared/domain/qr-code/short-code.js';
import { offlineAmountText, offlineShortCode, offlineTicketLink, offlineTicketSigned, readOfflineTicket, signOfflineTicket } from '../../shared/offline/offline-ticket.js';

interface Vector {
  saleId: string;
  amount: string;
  soldAt: string;
  signedText: string;
  link: string;
  shortCode: string;
}

const doc = readFileSync(new URL('../../docs/offline-tickets.md', import.meta.url), 'utf8');
const KEY = /the key `(afok_[A-Za-z0-9_-]{10}\.[A-Za-z0-9_-]{43})`/.exec(doc)?.[1] ?? '';
const BASE = /`linkBaseUrl` `([^`]+)`/.exec(doc)?.[1] ?? '';
const VECTORS = JSON.parse(/<!-- offline-ticket-vectors -->\s*```json\n([\s\S]*?)```/.exec(doc)?.[1] ?? '[]') as Vector[];

/**
 * An implementation written from docs/offline-tickets.md ("Signing a ticket in any language") alone, in
 * another language and its standard library: what an integrator would write.
 */
const PYTHON = String.raw`
import base64, hashlib, hmac, json, sys, urllib.parse
from datetime import datetime
ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
req = json.load(sys.stdin)
key_id, secret_text = req["key"][len("afok_"):].split(".")
secret = base64.urlsafe_b64decode(secret_text + "=" * (-len(secret_text) % 4))
def base36(n):
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = digits[r] + out
        if n == 0:
            return out
def amount(text):
    whole, _, frac = text.partition(".")
    whole = whole.lstrip("0") or "0"
    frac = frac.rstrip("0")
    return whole + "." + frac if frac else whole
out = []
for v in req["vectors"]:
    seconds = int(datetime.fromisoformat(v["soldAt"].replace("Z", "+00:00")).timestamp())
    fields = ["v2", key_id, base36(seconds), amount(v["amount"]), v["saleId"]]
    text = "\n".join(fields).encode("utf-8")
    m = base64.urlsafe_b64encode(hmac.new(secret, text, hashlib.sha256).digest()[:16]).decode().rstrip("=")
    s = urllib.parse.quote(v["saleId"], safe="-_.!~*'()")
    link = f"{req['base']}/q?v=2&k={key_id}&w={fields[2]}&a={fields[3]}&s={s}&m={m}"
    n = int.from_bytes(hmac.new(secret, b"code\n" + text, hashlib.sha256).digest(), "big")
    code = ""
    for _ in range(12):
        code += ALPHABET[n % 31]
        n //= 31
    out.append({"signedText": text.decode("utf-8"), "link": link, "shortCode": "-".join([code[0:4], code[4:8], code[8:12]])})
print(json.dumps(out))
`;

describe('issue #39: an offline ticket signed from docs/offline-tickets.md alone', () => {
  it('the doc holds its key, base and test vectors', () => {
    expect(KEY).to.match(/^afok_/);
    expect(BASE).to.match(/^https:\/\//);
    expect(VECTORS).to.have.length.at.least(3);
  });

  it('the service signs, links, codes and reads each vector exactly as written', () => {
    const [, keyId, secretText] = /^afok_([^.]+)\.(.+)$/.exec(KEY)!;
    const secret = Buffer.from(secretText!, 'base64url');
    expect(secret).to.have.length(32);
    for (const v of VECTORS) {
      const params = signOfflineTicket({ keyId: keyId!, saleId: v.saleId, amount: offlineAmountText(v.amount)!, soldAt: new Date(v.soldAt) }, secret);
      expect(['v2', params.k, params.w, params.a, params.s].join('\n'), v.saleId).to.equal(v.signedText);
      expect(offlineTicketLink(BASE, params), v.saleId).to.equal(v.link);
      expect(formatShortCode(offlineShortCode(params, secret)), v.saleId).to.equal(v.shortCode);
      const query = Object.fromEntries(new URL(v.link).searchParams);
      const read = readOfflineTicket(query);
      expect(read.ok && offlineTicketSigned(read.params, secret), v.saleId).to.equal(true);
    }
  });

  it('the typed client makes the same link and code', () => {
    for (const v of VECTORS) {
      const ticket = offlineTicket(KEY, BASE, { saleId: v.saleId, amount: v.amount, soldAt: new Date(v.soldAt) });
      expect([ticket.link, ticket.shortCode], v.saleId).to.deep.equal([v.link, v.shortCode]);
    }
  });

  it('an independent Python implementation of the doc makes the same bytes', () => {
    const run = spawnSync('python3', ['-c', PYTHON], { input: JSON.stringify({ key: KEY, base: BASE, vectors: VECTORS }), encoding: 'utf8' });
    expect(run.status, run.stderr).to.equal(0);
    const made = JSON.parse(run.stdout) as Pick<Vector, 'signedText' | 'link' | 'shortCode'>[];
    expect(made).to.deep.equal(VECTORS.map(({ signedText, link, shortCode }) => ({ signedText, link, shortCode })));
  });
});
