import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { invoicePdfDataFromXml } from '../../../shared/pdf/invoice-pdf-data.js';
import { renderInvoicePdf } from '../../../shared/pdf/render-invoice-pdf.js';
import { satCatalogs } from '../../../shared/sat/catalogs.js';
import { SAT_DIR } from '../../helpers/sat-tools.js';

const run = promisify(execFile);
const catalogs = satCatalogs();
const STAMPED_INVOICE = readFileSync(fileURLToPath(new URL('../../fixtures/cfdi/stamped-sample.xml', import.meta.url)), 'utf8');
/** SAT's Pagos 2.0 sample (two invoices: the second half of one, part of another) with a TFD, as a PAC returns it. */
const PAYMENT = readFileSync(`${SAT_DIR}samples/cfdi40-pago20-EKU9003173C9-sellado-sin-timbre.xml`, 'utf8').replace(
  '</pago20:Pagos>',
  `</pago20:Pagos>${/<tfd:TimbreFiscalDigital [^>]*\/>/.exec(STAMPED_INVOICE)![0]}`,
);

describe('printed representation of a payment complement (type P)', () => {
  it('reads the Pagos 2.0 complement: each payment and each invoice it pays with installment and balances', () => {
    const data = invoicePdfDataFromXml(PAYMENT, catalogs);
    expect(data.receiptType.code).to.equal('P');
    expect(data.payments?.totalAmount).to.equal('15000.00');
    expect(data.payments?.items).to.have.length(1);
    const payment = data.payments!.items[0]!;
    expect(payment).to.deep.include({ date: '2023-06-12T17:18:19', exchangeRate: '1', amount: '15000.00', operationNumber: '963852' });
    expect(payment.form).to.deep.equal({ code: '03', description: 'Transferencia electrónica de fondos' });
    expect(payment.documents.map((d) => [d.uuid, d.installment, d.previousBalance, d.amountPaid, d.remainingBalance])).to.deep.equal([
      ['00000000-1111-2222-3333-00000000000A', '2', '12000.00', '12000.00', '0'],
      ['00000000-1111-2222-3333-00000000000B', '1', '10000.00', '3000.00', '7000.00'],
    ]);
    expect(invoicePdfDataFromXml(STAMPED_INVOICE, catalogs).payments).to.equal(undefined);
  });

  it('renders the payment and the invoices paid instead of the totals of 0 XXX', async function () {
    this.timeout(30_000);
    const dir = await mkdtemp(join(tmpdir(), 'payment-pdf-'));
    try {
      const path = join(dir, 'payment.pdf');
      await writeFile(path, await renderInvoicePdf(invoicePdfDataFromXml(PAYMENT, catalogs), {}));
      const text = (await run('pdftotext', ['-layout', path, '-'])).stdout;
      for (const expected of [
        'P - Pago',
        'CP01 - Pagos',
        'Fecha de pago',
        '2023-06-12T17:18:19',
        '03 - Transferencia electrónica de fondos',
        '15,000.00',
        '963852',
        '00000000-1111-2222-3333-00000000000A',
        '00000000-1111-2222-3333-00000000000B',
        '12,000.00',
        '10,000.00',
        '3,000.00',
        '7,000.00',
        'Parcialidad',
        'Saldo anterior',
        'Saldo insoluto',
        'Monto total de los pagos (MXN)',
        'Timbre fiscal digital',
      ])
        expect(text, expected).to.include(expected);
      expect(text).not.to.include('CERO 00/100');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
