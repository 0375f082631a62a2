import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { startFakePacServer, type FakePacServer } from '../../../../fakes/pac-server.js';
import type { CfdiReceptor } from '../../../../shared/domain/cfdi/cfdi-input.js';
import { parseXml } from '../../../../shared/domain/cfdi/parse-xml.js';
import { attribute } from '../../../../shared/domain/cfdi/xml-element.js';
import { PacRefused, PacUnavailable, type PacCancelRequest, type PacClient, type PacStamp, type SatStatusQuery } from '../../../../shared/adapters/pac/pac-client.js';
import { swPacClient } from '../../../../shared/adapters/pac/sw-pac-client.js';
import { ISSUER, sealedInvoice } from '../../../fixtures/cfdi/sealed-invoice.js';
import { rejection } from '../../../helpers/rejection.js';

const CSD_DIR = new URL('../../../../data/sat/test-csd/', import.meta.url);
/** Another taxpayer's CSD (AAA010101AAA), same password. */
const OTHER_CSD_DIR = new URL('../../../fixtures/sat-test-csd/CSD01_AAA010101AAA/', import.meta.url);
const PASSWORD = '12345678a';
/** Not one SAT knows: its RFC has the two characters a raw QR expression must carry as they are. */
const ODD_RECEPTOR: CfdiReceptor = { rfc: 'Ñ&A010101AAA', name: 'COMERCIAL ÑANDU & ASOCIADOS', taxRegime: '601', postalCode: '06600', cfdiUse: 'G03' };
/** The fake PAC's xmllint run takes 1-5 s on a loaded machine, and timers here fire up to ~1.5 s late. */
const TIMEOUT_MS = 5000;
const HANG_TIMEOUT_MS = 1500;
/** Beyond the end of the next business day whatever weekday it is now: the receptor must accept. */
const FIVE_DAYS_H = 5 * 24;

function statusQuery(stamp: PacStamp): SatStatusQuery {
  const comprobante = parseXml(stamp.xml);
  const rfc = (name: string) =>
    attribute(
      comprobante.children.find((c) => c.name === name)!,
      'Rfc',
    )!;
  return { uuid: stamp.uuid, issuerRfc: rfc('cfdi:Emisor'), receptorRfc: rfc('cfdi:Receptor'), total: attribute(comprobante, 'Total')!, seal: attribute(comprobante, 'Sello')! };
}

const FOUND = 'S - Comprobante obtenido satisfactoriamente.';

/** SAT's status service asked directly, as any SOAP client would. */
async function askSat(pac: FakePacServer, expression: string): Promise<string> {
  const envelope =
    '<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><c:Consulta xmlns:c="http://tempuri.org/">' +
    `<c:expresionImpresa>${expression.replaceAll('&', '&amp;')}</c:expresionImpresa></c:Consulta></s:Body></s:Envelope>`;
  const res = await fetch(`${pac.url}/ConsultaCFDIService.svc`, { method: 'POST', body: envelope, headers: { 'content-type': 'text/xml; charset=utf-8' } });
  return res.text();
}

describe('CFDI cancellation and SAT status through the SW-format client against the fake PAC', function () {
  this.timeout(4 * TIMEOUT_MS);
  let pac: FakePacServer;
  let client: PacClient;
  const csd = { certificateDer: readFileSync(new URL('EKU9003173C9.cer', CSD_DIR)), privateKeyDer: readFileSync(new URL('EKU9003173C9.key', CSD_DIR)), password: PASSWORD };
  const request = (uuid: string, changes: Partial<PacCancelRequest> = {}): PacCancelRequest => ({ uuid, issuerRfc: ISSUER.rfc, motive: '02', ...csd, ...changes });
  let small: PacStamp;
  let accepted: PacStamp;
  let rejected: PacStamp;
  let unanswered: PacStamp;
  let other: PacStamp;
  let odd: PacStamp;

  before(async () => {
    pac = await startFakePacServer();
    client = swPacClient(pac.url, pac.token, TIMEOUT_MS, `${pac.url}/ConsultaCFDIService.svc`);
    // Sent together, the documents share one xmllint run in the fake.
    const stamp = (unitPrice: string, receptor?: CfdiReceptor) => client.stamp(sealedInvoice(unitPrice, receptor), {});
    [small, accepted, rejected, unanswered, other, odd] = await Promise.all([stamp('500'), stamp('5000'), stamp('5000'), stamp('5000'), stamp('5000'), stamp('100', ODD_RECEPTOR)]);
    for (const stamp of [accepted, rejected, unanswered]) pac.backdate(stamp.uuid, FIVE_DAYS_H);
  });
  after(() => pac.close());

  it('a stamped CFDI is Vigente, found by both RFCs and its total, even with & and Ñ in an RFC', async () => {
    expect(await client.status(statusQuery(other))).to.deep.equal({
      query: 'found',
      code: FOUND,
      state: 'Vigente',
      cancellable: 'Cancelable sin aceptación',
      cancellationStatus: '',
    });
    expect((await client.status(statusQuery(odd))).state).to.equal('Vigente');
    expect(await client.status({ ...statusQuery(other), total: '1.00' })).to.include({ query: 'not_found', code: 'N - 602: Comprobante no encontrado.', state: 'No Encontrado' });
  });

  it("asks with the CFDI 4.0 expression, as the PDF's QR writes it: the RFC's & as &amp;, Ñ as it is, the total trimmed, fe the seal's last 8", async () => {
    const query = statusQuery(odd);
    const asked = pac.statusExpressions.length;
    expect((await client.status(query)).query).to.equal('found');
    expect(pac.statusExpressions.slice(asked)).to.deep.equal([
      `https://verificacfdi.facturaelectronica.sat.gob.mx/default.aspx?id=${odd.uuid}&re=${ISSUER.rfc}&rr=Ñ&amp;A010101AAA&tt=116.0&fe=${query.seal.slice(-8)}`,
    ]);
    expect(query.total).to.equal('116.00');
  });

  it('an expression SAT cannot read is N - 601, told apart from a CFDI it does not know (N - 602)', async () => {
    // The CFDI 3.2 form the service used to send.
    const old = `?re=${ISSUER.rfc}&rr=URE180429TM6&tt=${statusQuery(other).total}&id=${other.uuid}`;
    expect(await askSat(pac, old)).to.contain('<a:CodigoEstatus>N - 601: La expresión impresa proporcionada no es válida.</a:CodigoEstatus>');
    expect(await client.status({ ...statusQuery(other), uuid: 'not-a-uuid' })).to.deep.equal({
      query: 'invalid_expression',
      code: 'N - 601: La expresión impresa proporcionada no es válida.',
      state: '',
      cancellable: '',
      cancellationStatus: '',
    });
    pac.notYetAtSat(other.uuid);
    expect(await client.status(statusQuery(other))).to.include({ query: 'not_found', state: 'No Encontrado' });
    pac.reachesSat(other.uuid);
    expect(await client.status(statusQuery(other))).to.include({ query: 'found', state: 'Vigente' });
  });

  it('an invoice up to $1,000 is cancelled at once; asking again answers 202', async () => {
    const answer = await client.cancel(request(small.uuid));
    expect(answer.satCode).to.equal('201');
    expect(answer.acuse).to.contain(`<UUID>${small.uuid}</UUID>`).and.contain('<EstatusUUID>201</EstatusUUID>');
    expect(await client.status(statusQuery(small))).to.include({ state: 'Cancelado', cancellationStatus: 'Cancelado sin aceptación' });
    const again = await client.cancel(request(small.uuid));
    expect(again.satCode).to.equal('202');
    expect(pac.calls.filter((c) => c.uuid === small.uuid).map((c) => c.outcome)).to.deep.equal(['stamped', 'cancel 201 Cancelado sin aceptación', 'cancel 202']);
  });

  it('an older invoice over $1,000 waits for the receptor, who accepts', async () => {
    expect((await client.cancel(request(accepted.uuid))).satCode).to.equal('201');
    expect(await client.status(statusQuery(accepted))).to.deep.equal({
      query: 'found',
      code: FOUND,
      state: 'Vigente',
      cancellable: 'Cancelable con aceptación',
      cancellationStatus: 'En proceso',
    });
    // A repeated request while waiting is acknowledged again and changes nothing.
    expect((await client.cancel(request(accepted.uuid))).satCode).to.equal('201');
    expect((await client.status(statusQuery(accepted))).cancellationStatus).to.equal('En proceso');
    pac.receiverAnswers(accepted.uuid, 'accept');
    expect(await client.status(statusQuery(accepted))).to.include({ state: 'Cancelado', cancellationStatus: 'Cancelado con aceptación' });
  });

  it('the receptor may reject (the CFDI stays Vigente) or let the term pass (Plazo vencido)', async () => {
    await client.cancel(request(rejected.uuid));
    pac.receiverAnswers(rejected.uuid, 'reject');
    expect(await client.status(statusQuery(rejected))).to.include({ state: 'Vigente', cancellationStatus: 'Solicitud rechazada' });
    await client.cancel(request(unanswered.uuid, { motive: '03' }));
    pac.receiverAnswers(unanswered.uuid, 'no-answer');
    expect(await client.status(statusQuery(unanswered))).to.include({ state: 'Cancelado', cancellationStatus: 'Plazo vencido' });
  });

  it("refusals come as PacRefused with SW's generic code and message, and the cause in its detail (SW's messageDetail); motive 01 goes through with its substitute", async () => {
    const refusal = async (changes: Partial<PacCancelRequest>, uuid = other.uuid) => {
      const err = await rejection(client.cancel(request(uuid, changes)), PacRefused);
      return { code: err.pacCode, message: err.message, detail: err.detail };
    };
    const cause = async (changes: Partial<PacCancelRequest>, uuid = other.uuid) => (await refusal(changes, uuid)).detail?.split(' - ')[0];
    expect(await refusal({}, randomUUID().toUpperCase())).to.deep.equal({ code: 'CACFDI33', message: 'Problemas con el xml.', detail: 'CA205 - UUID no existe' });
    expect(await cause({ issuerRfc: 'AAA010101AAA' })).to.equal('CA203');
    expect(await cause({ motive: '01' })).to.equal('CA302');
    expect(await refusal({ certificateDer: Buffer.alloc(0) })).to.deep.equal({
      code: 'CACFDI33',
      message: 'Problemas con los campos.',
      detail: 'Son necesarios el .Cer y el .Key en formato B64',
    });
    const wrongPassword = await rejection(client.cancel(request(other.uuid, { password: 'not-the-password' })), PacRefused);
    expect(wrongPassword.detail).to.match(/^CA300 - /);
    expect(`${wrongPassword.message} ${wrongPassword.detail}`).not.to.contain('not-the-password');
    const otherCertificate = readFileSync(new URL('CSD01_AAA010101AAA.cer', OTHER_CSD_DIR));
    const otherKey = readFileSync(new URL('CSD01_AAA010101AAA.key', OTHER_CSD_DIR));
    expect(await cause({ certificateDer: otherCertificate, privateKeyDer: otherKey })).to.equal('CA300');
    expect(await cause({ privateKeyDer: otherKey })).to.equal('CA300');
    expect((await client.status(statusQuery(other))).state).to.equal('Vigente');
    // Stamped just now: within the next business day it cancels at once, whatever the amount.
    expect((await client.cancel(request(other.uuid, { motive: '01', substitutionUuid: small.uuid }))).satCode).to.equal('201');
    expect(await client.status(statusQuery(other))).to.include({ state: 'Cancelado', cancellationStatus: 'Cancelado sin aceptación' });
  });

  it('a 5xx, an unreadable answer and no answer at all are PacUnavailable, and cancel nothing', async () => {
    const hanging = swPacClient(pac.url, pac.token, HANG_TIMEOUT_MS, `${pac.url}/ConsultaCFDIService.svc`);
    pac.scriptCancel({ kind: 'status', status: 503 }, { kind: 'garbage' }, { kind: 'hang' });
    expect((await rejection(client.cancel(request(odd.uuid)), PacUnavailable)).message).to.contain('503');
    expect((await rejection(client.cancel(request(odd.uuid)), PacUnavailable)).message).to.contain('unreadable');
    await rejection(hanging.cancel(request(odd.uuid)), PacUnavailable);
    expect((await client.status(statusQuery(odd))).state).to.equal('Vigente');
  });

  it("SAT's status service: an unknown UUID is No Encontrado; an answer without Estado is PacUnavailable", async () => {
    const unknown = await client.status({ ...statusQuery(other), uuid: randomUUID().toUpperCase() });
    expect(unknown).to.deep.equal({ query: 'not_found', code: 'N - 602: Comprobante no encontrado.', state: 'No Encontrado', cancellable: '', cancellationStatus: '' });
    const broken: Server = createServer((_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Servicio no disponible</body></html>'));
    await new Promise<void>((resolve) => broken.listen(0, '127.0.0.1', resolve));
    try {
      const address = broken.address();
      if (!address || typeof address === 'string') throw new Error('no port');
      const viaBroken = swPacClient(pac.url, pac.token, TIMEOUT_MS, `http://127.0.0.1:${address.port}/ConsultaCFDIService.svc`);
      await rejection(viaBroken.status(statusQuery(other)), PacUnavailable);
    } finally {
      await new Promise<void>((resolve) => broken.close(() => resolve()));
    }
  });
});
