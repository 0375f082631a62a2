/**
 * stamp-invoice: one invoice (its steps, exported, are the batch's too: workers/stamp-invoices.ts). Seal (once,
 * or again when the sealed document nears SAT's 72-hour window) and send to the PAC. Retrying is safe: the same sealed bytes go again and the PAC answers with the stamp it
 * already made; every document of one invoice goes under one `customId` (the invoice's id), so a re-sealed
 * document gets the stamp of an earlier one instead of a second CFDI. Timeouts, 5xx and the PAC's own
 * failures (SW's CO1000) are thrown for BullMQ to retry with backoff; a refusal is recorded for the buyer and
 * ends the job; success stores the XML, marks the QR INVOICED and queues the e-mail to the buyer (which
 * renders the PDF it attaches: no PDF is made before someone needs one). A stamp the PAC withholds through
 * every attempt ends as `withheld`, named for an operator.
 */
import { qrTransitions, stampsWithheld } from '../shared/platform/metrics/registry.js';
import type { Job } from 'bullmq';
import { UnrecoverableError } from 'bullmq';
import { csdSigner, type CsdSigner } from '../shared/domain/cfdi/seal-cfdi.js';
import { parseXml } from '../shared/domain/cfdi/parse-xml.js';
import { attribute } from '../shared/domain/cfdi/xml-element.js';
import type { Keyring } from '../shared/platform/crypto/encrypt-at-rest.js';
import type { Db } from '../shared/platform/db.js';
import { refusalFromPac } from '../shared/invoices/refusal-from-pac.js';
import { sealInput, sealSale, type SealedSale } from '../shared/invoices/seal-sale.js';
import { storedDocument } from '../shared/invoices/stored-document.js';
import { unbuildableRefusal } from '../shared/invoices/unbuildable-refusal.js';
import type { InvoicePayload, StampInvoiceResult } from '../shared/platform/jobs.js';
import { PacRefused, PacStampWithheld, type PacClient } from '../shared/adapters/pac/pac-client.js';
import type { Producers } from '../shared/platform/queues.js';
import {
  findInvoiceToStamp,
  markStampWithheld,
  recordRefusal,
  recordStamp,
  saveSealedDocument,
  saveTwinReseal,
  type InvoiceRow,
  type InvoiceToStamp,
} from '../shared/repositories/invoices.js';
import { loadCsdMaterial } from '../shared/repositories/merchant-csds.js';
import { expeditionPlace, findSales, type Sale } from '../shared/repositories/sales.js';
import type { SatCatalogs } from '../shared/sat/catalogs.js';
import type { FileStore } from '../shared/platform/storage/file-store.js';
import { localDateTime } from '../shared/domain/time-zone.js';
import { crashAfterCommit } from '../shared/platform/crash-after-commit.js';
import { enqueueBuyerEmail } from '../shared/invoices/enqueue-follow-ups.js';
import { combineTickets } from '../shared/invoices/combine-tickets.js';

export interface StampDeps {
  db: Db;
  pac: PacClient;
  files: FileStore;
  catalogs: SatCatalogs;
  producers: Producers;
  keyring: Keyring;
}

/**
 * SAT refuses a Fecha older than 72 hours; past this age the document is rebuilt with a new one and re-sealed.
 * SW takes the re-sealed document for a new one (another seal), so an earlier document stamped with its answer
 * lost would make a second CFDI: both go under the invoice's customid, and SW answers the earlier stamp
 * (CFDI3307) instead. SW keeps a customid 72 hours from its first use, which is this invoice's first send, at
 * or after the first Fecha: a re-sealed document reaches SW within that life unless the PAC stays unreachable
 * for the last 2 hours of it (then SW no longer ties it to the earlier one: docs/stamping.md, "customid").
 */
export const RESEAL_AFTER_HOURS = 70;

// Opening an encrypted PKCS#8 key costs milliseconds; a signer is reused until the merchant's CSD changes.
const signers = new Map<string, { updatedAt: number; signer: CsdSigner }>();

/** `csdUpdatedAt`: when the CSD last changed, read with the invoice; the key is read and decrypted only when it did. */
async function signerFor(deps: StampDeps, merchantId: string, csdUpdatedAt: Date | null): Promise<CsdSigner> {
  const kept = signers.get(merchantId);
  if (kept && csdUpdatedAt && kept.updatedAt === csdUpdatedAt.getTime()) return kept.signer;
  const material = await loadCsdMaterial(deps.db, merchantId, deps.keyring);
  if (!material) throw new UnrecoverableError(`merchant ${merchantId} has no CSD`);
  const cached = signers.get(merchantId);
  if (cached && cached.updatedAt === material.updatedAt.getTime()) return cached.signer;
  const signer = csdSigner(material.certificateDer, material.privateKeyDer, material.password);
  signers.set(merchantId, { updatedAt: material.updatedAt.getTime(), signer });
  return signer;
}

function hoursBetweenLocal(earlier: string, later: string): number {
  return (Date.parse(`${later}Z`) - Date.parse(`${earlier}Z`)) / 3_600_000;
}

type Numbering = { series?: string; folio: string; issuedLocal: string };

/** What an invoice's document is built from, with the time zone its Fecha is written in. */
export interface DocumentSource {
  timeZone: string;
  seal(numbering: Numbering, signer: CsdSigner): SealedSale;
}

/** The sales a QR invoice's document is built from (one statement for any number of invoices); none for a CFDI without a QR sale. */
export async function salesOf(deps: Pick<StampDeps, 'db'>, invoices: readonly InvoiceToStamp[]): Promise<Map<string, Sale>> {
  return findSales(
    deps.db,
    invoices.filter((t) => t.invoice.transaction_id).flatMap((t) => t.tickets.map((ticket) => ticket.id)),
  );
}

/** What the document is built from: the QR sale for its buyer (`sales`: read by salesOf), or the stored document of a credit note, payment complement or global invoice. */
export function documentSource(deps: Pick<StampDeps, 'catalogs'>, { invoice, tickets }: InvoiceToStamp, sales: ReadonlyMap<string, Sale>): DocumentSource {
  if (!invoice.transaction_id) {
    const stored = storedDocument(invoice.document);
    return { timeZone: stored.timeZone, seal: (numbering, signer) => sealInput({ ...stored.input, ...numbering }, signer) };
  }
  const [sale, ...further] = tickets.map(({ id }) => sales.get(id));
  if (!sale || further.some((s) => s === undefined)) throw new UnrecoverableError(`a ticket of invoice ${invoice.id} is gone`);
  // Several tickets: every ticket's concepts under the first one's header (checked when confirmed).
  const record = combineTickets([sale.record, ...further.map((s) => s!.record)]);
  return {
    timeZone: sale.record.transaction.time_zone,
    seal: (numbering, signer) =>
      sealSale(
        record,
        invoice.customer,
        {
          issuer: { rfc: sale.issuer.rfc, name: sale.issuer.name, taxRegime: sale.issuer.taxRegime },
          expeditionPlace: expeditionPlace(sale),
          ...numbering,
          resicoWithholding: sale.merchant.invoiceRules.resicoWithholding,
        },
        signer,
        deps.catalogs,
      ),
  };
}

/** A document to send: the stored one while fresh, one sealed now (to be saved before it is sent), or a refusal already recorded. */
export type Sealing = { kind: 'stored'; xml: string } | { kind: 'sealed'; xml: string; issuedLocal: string } | { kind: 'refused' };

/**
 * The sealed document to send: the stored one while fresh, else a newly built and sealed one, not saved yet
 * (the caller saves it: one statement for a whole batch). `after`: a Fecha the new document must come after
 * (waits for the clock to pass it: SAT refuses a Fecha ahead of the stamp). A document that cannot be built
 * or breaks Anexo 20's arithmetic is refused here (recorded).
 */
export async function sealDocument(deps: StampDeps, toStamp: InvoiceToStamp, source: DocumentSource, now: () => Date, after?: string): Promise<Sealing> {
  const { invoice } = toStamp;
  let nowLocal = localDateTime(now(), source.timeZone);
  if (after === undefined && invoice.sealed_xml && invoice.issued_local && hoursBetweenLocal(invoice.issued_local, nowLocal) < RESEAL_AFTER_HOURS)
    return { kind: 'stored', xml: invoice.sealed_xml };
  while (after !== undefined && nowLocal <= after) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    nowLocal = localDateTime(now(), source.timeZone);
  }
  const signer = await signerFor(deps, invoice.merchant_id, toStamp.csdUpdatedAt);
  let sealed: SealedSale;
  try {
    sealed = source.seal({ series: invoice.series ?? undefined, folio: invoice.folio, issuedLocal: nowLocal }, signer);
  } catch (err) {
    // Stored data no retry changes (a sale_id with a scanner's GS, kept from before the door refused it): refused at once (issue #38).
    const refusal = unbuildableRefusal(err);
    if (!refusal) throw err;
    await recordRefusal(deps.db, invoice.id, refusal);
    return { kind: 'refused' };
  }
  if (!sealed.ok) {
    await recordRefusal(deps.db, invoice.id, {
      code: 'invoice_arithmetic',
      message: "The sale cannot be invoiced as recorded: its amounts break Anexo 20's rules.",
      details: sealed.findings.map((f) => ({ field: f.path, code: f.code, message: f.message, source: 'service' as const, pac_code: f.satCode })),
    });
    return { kind: 'refused' };
  }
  return { kind: 'sealed', xml: sealed.xml, issuedLocal: nowLocal };
}

/**
 * The invoice's customid at the PAC. A stamp made under it may end up another invoice's (a twin sent at the same
 * moment got the same stamp and recorded it first): the PAC would answer that stamp under this customid for
 * 72 hours, so each re-seal for a twin goes under the next one. The count of those that ended with another
 * invoice's stamp is stored with the re-sealed document (`stamp_twins`): a later run starts at the first one
 * whose answer is not known to be another's (it may hold this invoice's own stamp: a lost answer).
 */
function customIdOf(invoiceId: string, twins: number): string {
  return twins === 0 ? invoiceId : `${invoiceId}.${twins}`;
}

/** A stamp's outcome read from the invoice's row alone, or undefined when it is to be stamped. */
export function outcomeWithoutStamp(invoice: InvoiceRow): StampInvoiceResult | undefined {
  if (invoice.status === 'ACTIVE') return { outcome: 'already-stamped', uuid: invoice.uuid ?? undefined, qrId: invoice.transaction_id };
  if (invoice.status !== 'STAMPING') return { outcome: 'not-stamping', qrId: invoice.transaction_id };
  if (invoice.stamp_withheld_at) return { outcome: 'withheld', qrId: invoice.transaction_id };
  return undefined;
}

/** What sending an invoice's document ended in; `recorded`: this call recorded the stamp (its e-mail is to be queued). */
export interface SendOutcome {
  result: StampInvoiceResult;
  recorded: boolean;
}

/**
 * Sends the sealed (and saved) document to the PAC and records the answer in its own all-or-nothing statement:
 * a stamp, a refusal, or (`lastAttempt`) a stamp withheld through every attempt. Throws what the PAC did not
 * answer (a timeout, a 5xx, SW's own failures, refused credentials): the caller retries.
 */
export async function sendAndRecord(
  deps: StampDeps,
  toStamp: InvoiceToStamp,
  source: DocumentSource,
  firstDocument: string,
  lastAttempt: boolean,
  now: () => Date,
): Promise<SendOutcome> {
  const { invoice } = toStamp;
  // A document byte for byte like one already stamped (one RFC, one Serie, the same folio, second, buyer and
  // items: two points of sale of an issuer sharing a Serie, or the RFC under two accounts) gets that one's
  // stamp back as "previously stamped". Its UUID is not ours: seal again with a later Fecha. The twin is seen
  // by the unique UUID when recording (no read before: twins are rare, every stamp would pay for it); its
  // XML, stored just before, is removed again.
  let sealed = firstDocument;
  for (let twins = invoice.stamp_twins; ; twins++) {
    let stamp;
    try {
      stamp = await deps.pac.stamp(sealed, { customId: customIdOf(invoice.id, twins) });
    } catch (err) {
      // Retried like any outage; on the last attempt, named instead: the CFDI exists and only a person
      // can get it (SW's support, SAT's portal). The sweep would otherwise re-queue it without end.
      if (err instanceof PacStampWithheld && lastAttempt) {
        await markStampWithheld(deps.db, invoice.id, now());
        stampsWithheld.inc();
        return { result: { outcome: 'withheld', qrId: invoice.transaction_id }, recorded: false };
      }
      if (!(err instanceof PacRefused)) throw err;
      await recordRefusal(deps.db, invoice.id, refusalFromPac(err.pacCode, err.message));
      return { result: { outcome: 'refused', qrId: invoice.transaction_id, code: err.pacCode }, recorded: false };
    }
    const comprobante = parseXml(stamp.xml);
    // The stamp of an earlier document of this invoice (SW's answer to its customid): that document, with its
    // Fecha, is the invoice's from now on (the books read it), not the one just sealed.
    if (attribute(comprobante, 'Sello') !== attribute(parseXml(sealed), 'Sello')) {
      await saveSealedDocument(deps.db, invoice.id, stamp.xml, attribute(comprobante, 'Fecha') ?? '');
    }
    const xmlFileKey = await deps.files.put('invoices', { contentType: 'application/xml', data: Buffer.from(stamp.xml, 'utf8') }, 'xml');
    const recorded = await recordStamp(deps.db, toStamp, {
      uuid: stamp.uuid,
      stampedAt: new Date(`${stamp.stampedAt}-06:00`),
      xmlFileKey,
      subtotal: attribute(comprobante, 'SubTotal') ?? '0',
      discount: attribute(comprobante, 'Descuento') ?? '0',
      total: attribute(comprobante, 'Total') ?? '0',
    });
    if (recorded.outcome !== 'uuid-taken') {
      crashAfterCommit('invoice-stamped');
      if (recorded.outcome === 'recorded' && recorded.qrsInvoiced > 0) qrTransitions.inc({ status: 'INVOICED' }, recorded.qrsInvoiced);
      return { result: { outcome: 'stamped', uuid: stamp.uuid, qrId: invoice.transaction_id }, recorded: recorded.outcome === 'recorded' };
    }
    await deps.files.remove(xmlFileKey);
    const resealed = await sealDocument(deps, toStamp, source, now, attribute(parseXml(sealed), 'Fecha'));
    if (resealed.kind === 'refused') return { result: { outcome: 'refused', qrId: invoice.transaction_id, code: 'service' }, recorded: false };
    if (resealed.kind === 'sealed') await saveTwinReseal(deps.db, invoice.id, resealed.xml, resealed.issuedLocal, twins + 1);
    sealed = resealed.xml;
    // Each re-seal waits for the clock's next second: a run stops after three, the next attempt goes on from there.
    if (twins + 1 - invoice.stamp_twins >= 3) {
      throw new Error(`the PAC answered invoice ${invoice.id} three times with the stamp of another invoice (${stamp.uuid}); sealed again for the next attempt`);
    }
  }
}

export async function stampInvoiceJob(deps: StampDeps, job: Job<InvoicePayload>, now: () => Date = () => new Date()): Promise<StampInvoiceResult> {
  const toStamp = await findInvoiceToStamp(deps.db, job.data.invoiceId);
  if (!toStamp) throw new UnrecoverableError(`invoice ${job.data.invoiceId} does not exist`);
  const { invoice } = toStamp;
  const settled = outcomeWithoutStamp(invoice);
  if (settled) {
    // Stamped by an earlier run whose e-mail job may not have been queued: queueing again is a no-op if it was.
    if (settled.outcome === 'already-stamped') await enqueueBuyerEmail(deps.producers, invoice);
    return settled;
  }
  const source = documentSource(deps, toStamp, await salesOf(deps, [toStamp]));
  const sealed = await sealDocument(deps, toStamp, source, now);
  if (sealed.kind === 'refused') return { outcome: 'refused', qrId: invoice.transaction_id, code: 'service' };
  if (sealed.kind === 'sealed') await saveSealedDocument(deps.db, invoice.id, sealed.xml, sealed.issuedLocal);
  const lastAttempt = (job.attemptsMade ?? 0) + 1 >= (job.opts?.attempts ?? 1);
  const { result } = await sendAndRecord(deps, toStamp, source, sealed.xml, lastAttempt, now);
  if (result.outcome === 'stamped') await enqueueBuyerEmail(deps.producers, invoice);
  return result;
}
