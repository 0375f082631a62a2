import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { startFakeSmtpServer, type FakeSmtpServer } from '../../../../fakes/smtp-server.js';
import { invoiceMail } from '../../../../shared/adapters/email/invoice-mail.js';
import { MailRejected, MailUnavailable, type InvoiceMail, type Mailer } from '../../../../shared/adapters/email/invoice-mailer.js';
import { smtpMailer } from '../../../../shared/adapters/email/smtp-mailer.js';
import { rejection } from '../../../helpers/rejection.js';

/** smtp-server greets after its own 100 ms timer, which has fired up to 3 s late on a loaded machine. */
const TIMEOUT_MS = 10_000;
/** The mailer of the hanging-server test: shorter, yet long enough for the good send that follows in that test. */
const HANG_TIMEOUT_MS = 5000;

const input = {
  to: 'comprador@example.test',
  uuid: 'a1b2c3d4-5e6f-4a1b-8c2d-0123456789ab',
  series: 'A',
  folio: '1042',
  issuerName: 'Panadería <b>A&B</b>',
  issuerRfc: 'EKU9003173C9',
  total: '1,160.00',
  currency: 'MXN',
  storeName: 'Sucursal Centro',
  supportEmail: 'ayuda@example.test',
  xml: Buffer.from('<?xml version="1.0" encoding="UTF-8"?><cfdi:Comprobante Nombre="Panadería Ñandú"/>'),
  // Every byte value, and more than one base64 line's worth.
  pdf: Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(100_000)]),
  viewUrl: 'https://factura.example.test/f/abc?x=1&y=2',
};

/** A loopback port nobody listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe('SMTP mailer against the fake SMTP server', function () {
  // A test makes up to two sends, each allowed its mailer's whole budget.
  this.timeout(60_000);
  let fake: FakeSmtpServer;
  let mailer: Mailer & { close(): void };
  let mail: InvoiceMail;
  before(async () => {
    fake = await startFakeSmtpServer();
    mailer = smtpMailer({ url: fake.url, from: 'Facturas <facturas@example.test>', timeoutMs: TIMEOUT_MS });
    mail = invoiceMail(input);
  });
  after(async () => {
    mailer.close();
    await fake.close();
  });

  async function delivered(before: number) {
    const messages = await fake.waitForMessages(before + 1, 2000);
    return messages[before]!;
  }

  it('delivers the invoice: envelope, subject, both attachments byte for byte, escaped HTML', async () => {
    const before = fake.messages.length;
    const { messageId } = await mailer.send(mail);
    const received = await delivered(before);

    expect(received.from).to.equal('facturas@example.test');
    expect(received.to).to.deep.equal(['comprador@example.test']);
    expect(received.headers.get('subject')).to.equal('Tu factura de Panadería <b>A&B</b>');
    expect(received.headers.get('message-id')).to.equal(messageId);
    expect(received.parts.filter((p) => p.filename).map((p) => [p.filename, p.contentType])).to.deep.equal([
      ['A1B2C3D4-5E6F-4A1B-8C2D-0123456789AB.xml', 'application/xml'],
      ['A1B2C3D4-5E6F-4A1B-8C2D-0123456789AB.pdf', 'application/pdf'],
    ]);
    expect(received.attachment('A1B2C3D4-5E6F-4A1B-8C2D-0123456789AB.xml')?.equals(input.xml)).to.equal(true, 'XML differs');
    expect(received.attachment('A1B2C3D4-5E6F-4A1B-8C2D-0123456789AB.pdf')?.equals(input.pdf)).to.equal(true, 'PDF differs');

    const html = received.body('text/html') ?? '';
    expect(html).to.include('Panadería &lt;b&gt;A&amp;B&lt;/b&gt; (RFC EKU9003173C9)');
    expect(html).not.to.include('<b>');
    expect(html).to.include('<a href="https://factura.example.test/f/abc?x=1&amp;y=2">');
    expect(html).to.include('A1B2C3D4-5E6F-4A1B-8C2D-0123456789AB');
    const text = received.body('text/plain') ?? '';
    expect(text).to.include('Emisor: Panadería <b>A&B</b> (RFC EKU9003173C9)');
    expect(text).to.match(/Serie: A\r?\nFolio: 1042\r?\nTotal: 1,160\.00 MXN/);
    expect(text).to.include('https://factura.example.test/f/abc?x=1&y=2');
  });

  it('a 451 reply is MailUnavailable with the code, and the next attempt goes through', async () => {
    const before = fake.messages.length;
    fake.failNext(1, { code: 451, message: 'Greylisted, try again later' });
    const err = await rejection(mailer.send(mail), MailUnavailable);
    expect(err.responseCode).to.equal(451);
    expect(err.message).to.include('Greylisted');
    expect(fake.messages.length).to.equal(before);

    await mailer.send(mail);
    await delivered(before);
  });

  it('a 451 after DATA is MailUnavailable too', async () => {
    fake.failNext(1, { code: 451, at: 'data' });
    expect((await rejection(mailer.send(mail), MailUnavailable)).responseCode).to.equal(451);
  });

  it('a 550 (unknown recipient) is MailRejected with the code', async () => {
    const before = fake.messages.length;
    fake.failNext(1, { code: 550, message: 'No such user here' });
    const err = await rejection(mailer.send(mail), MailRejected);
    expect(err.responseCode).to.equal(550);
    expect(err.message).to.include('No such user here');
    expect(fake.messages.length).to.equal(before);
  });

  it('a 550 after DATA is MailRejected', async () => {
    fake.failNext(1, { code: 550, at: 'data' });
    expect((await rejection(mailer.send(mail), MailRejected)).responseCode).to.equal(550);
  });

  it('a server that never answers is MailUnavailable once timeoutMs has passed, and the pool recovers', async () => {
    const hanging = smtpMailer({ url: fake.url, from: 'Facturas <facturas@example.test>', timeoutMs: HANG_TIMEOUT_MS });
    try {
      const before = fake.messages.length;
      fake.failNext(1, { code: 'hang' });
      const started = Date.now();
      const err = await rejection(hanging.send(mail), MailUnavailable);
      const elapsed = Date.now() - started;
      expect(err.message).to.include(`within ${HANG_TIMEOUT_MS} ms`);
      // Not before the deadline, and long before the minutes nodemailer's own socket timeouts would take.
      expect(elapsed).to.be.within(HANG_TIMEOUT_MS - 20, 5 * HANG_TIMEOUT_MS);

      await hanging.send(mail);
      await delivered(before);
    } finally {
      hanging.close();
    }
  });

  it('a refused connection is MailUnavailable at once, not after the timeout', async () => {
    // Waiting for this timeout instead would outlast the test's own (mocha) timeout.
    const refused = smtpMailer({ url: `smtp://127.0.0.1:${await closedPort()}`, from: 'facturas@example.test', timeoutMs: 60_000 });
    try {
      const err = await rejection(refused.send(mail), MailUnavailable);
      expect(err.message).to.include('ECONNREFUSED');
      expect(err.responseCode).to.equal(undefined);
    } finally {
      refused.close();
    }
  });
});

describe('invoice mail', () => {
  it('leaves out what is missing: series, folio, link; points to the store without a support address', () => {
    const mail = invoiceMail({ ...input, series: undefined, folio: undefined, viewUrl: undefined, supportEmail: undefined });
    expect(mail.text).not.to.match(/Serie|Folio:|https?:/);
    expect(mail.html).not.to.match(/Serie|>Folio<|href/);
    expect(mail.text).to.include('comunícate con Sucursal Centro.');
  });

  it('keeps the subject on one line', () => {
    expect(invoiceMail({ ...input, issuerName: 'ACME\r\nBcc: x@example.test' }).subject).to.equal('Tu factura de ACME Bcc: x@example.test');
  });

  it('refuses a malformed UUID and a link that is not http(s)', () => {
    expect(() => invoiceMail({ ...input, uuid: '../../etc/passwd' })).to.throw(/UUID/);
    expect(() => invoiceMail({ ...input, viewUrl: 'javascript:alert(1)' })).to.throw(/http/);
  });

  it('in development the fake keeps each message as an .eml file a person can open (FAKE_DATA_DIR/mail)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fake-mail-'));
    const keeping = await startFakeSmtpServer({ mailDir: dir });
    const sender = smtpMailer({ url: keeping.url, from: 'Facturas <facturas@example.test>', timeoutMs: TIMEOUT_MS });
    try {
      await sender.send(invoiceMail(input));
      await keeping.waitForMessages(1, 2000);
      const files = readdirSync(dir);
      expect(files).to.have.length(1);
      expect(files[0]).to.match(/\.eml$/);
      expect(readFileSync(join(dir, files[0]!)).equals(keeping.messages[0]!.raw)).to.equal(true);
    } finally {
      sender.close();
      await keeping.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
