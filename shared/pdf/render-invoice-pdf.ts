/**
 * The printed representation of a stamped CFDI 4.0 (Anexo 20, "representación impresa"): a letter-size
 * PDF with the document's data, its stamp, the seals, the TFD's cadena original and SAT's verification QR.
 * Only PDF standard fonts (Helvetica), so nothing is read from disk or the network.
 */
import PDFDocument from 'pdfkit';
import { amountInWords } from '../domain/cfdi/amount-in-words.js';
import { verificationExpression } from '../domain/cfdi/verification-expression.js';
import { renderQrPng } from '../domain/qr-code/render-qr-png.js';
import { localDateTime } from '../domain/time-zone.js';
import { useStandardFontTables } from './standard-font-metrics.js';
import { heightOf, REGULAR, write, type Align, type TextStyle } from './write-text.js';
import { gatherPageContentAsText } from './page-content-as-text.js';
import type { Coded, InvoicePdfConcept, InvoicePdfData, InvoicePdfPayment, InvoicePdfTax } from './invoice-pdf-data.js';

export interface RenderInvoicePdfOptions {
  /** PNG or JPEG, drawn at the top left, fitted in a 150 × 60 pt box. */
  logo?: Buffer;
}

type Doc = PDFKit.PDFDocument;

const PAGE_WIDTH = 612; // letter, in points
const PAGE_HEIGHT = 792;
const MARGIN = 36;
const CONTENT_WIDTH = PAGE_WIDTH - 2 * MARGIN;
const FOOTER_HEIGHT = 22;
/** Lowest y the body may reach; the footer lives below it. */
const BODY_BOTTOM = PAGE_HEIGHT - MARGIN - FOOTER_HEIGHT;
const GAP = 8;
const PAD = 3;

const BOLD = 'Helvetica-Bold';
const LABEL_COLOR = '#555555';
const RULE_COLOR = '#b0b0b0';
const BAND_COLOR = '#e4e4e4';

const QR_SIZE = 112;
const LOGO_BOX: [number, number] = [150, 60];
/** Central Mexico: FechaTimbrado is a wall-clock time there. */
const STAMP_ZONE = 'America/Mexico_City';

function coded(value: Coded | undefined): string {
  if (!value) return '';
  return value.description ? `${value.code} - ${value.description}` : value.code;
}

/** Thousands separators on an amount as written in the XML (its decimals kept as they are). */
function amount(value: string | undefined): string {
  if (value === undefined) return '';
  const [integer = '', decimals] = value.split('.');
  const grouped = integer.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return decimals === undefined ? grouped : `${grouped}.${decimals}`;
}

/** A wall-clock time in STAMP_ZONE as an instant. */
function stampInstant(local: string): Date {
  const asUtc = new Date(`${local}Z`);
  if (Number.isNaN(asUtc.getTime())) throw new RangeError(`invalid FechaTimbrado: ${local}`);
  const offset = new Date(`${localDateTime(asUtc, STAMP_ZONE)}Z`).getTime() - asUtc.getTime();
  return new Date(asUtc.getTime() - offset);
}

/** SAT's verification URL for CFDI 3.3/4.0 (Anexo 20), the content of the QR. */
function verificationUrl(data: InvoicePdfData): string {
  return verificationExpression({ uuid: data.stamp.uuid, issuerRfc: data.issuer.rfc, receptorRfc: data.receiver.rfc, total: data.total, seal: data.seal });
}

/** `y` when `height` still fits on this page, else the top of a new page. */
function ensureSpace(doc: Doc, y: number, height: number): number {
  if (y + height <= BODY_BOTTOM) return y;
  doc.addPage();
  return MARGIN;
}

const BAND_HEIGHT = 13;

function band(doc: Doc, title: string, x: number, y: number, width: number): number {
  doc.rect(x, y, width, BAND_HEIGHT).fill(BAND_COLOR);
  write(doc, title, x + PAD, y + 3, width - 2 * PAD, { font: BOLD, size: 7.5 });
  return BAND_HEIGHT;
}

/** A label over its value. */
type Field = [label: string, value: string];

const LABEL_STYLE: TextStyle = { font: BOLD, size: 6.5, color: LABEL_COLOR };
const VALUE_STYLE: TextStyle = { size: 8 };

function fieldHeight(doc: Doc, [label, value]: Field, width: number): number {
  return heightOf(doc, label, width, LABEL_STYLE) + 1 + heightOf(doc, value || '-', width, VALUE_STYLE);
}

function drawField(doc: Doc, [label, value]: Field, x: number, y: number, width: number): void {
  const labelHeight = write(doc, label, x, y, width, LABEL_STYLE);
  write(doc, value || '-', x, y + labelHeight + 1, width, VALUE_STYLE);
}

/** Fields in a grid of `columns`, row by row; returns its height. */
function fieldGrid(doc: Doc, fields: Field[], x: number, y: number, width: number, columns: number, draw: boolean): number {
  const cellWidth = width / columns;
  let top = y;
  for (let i = 0; i < fields.length; i += columns) {
    const row = fields.slice(i, i + columns);
    const rowHeight = Math.max(...row.map((f) => fieldHeight(doc, f, cellWidth - 2 * PAD)));
    if (draw) row.forEach((f, c) => drawField(doc, f, x + c * cellWidth + PAD, top, cellWidth - 2 * PAD));
    top += rowHeight + 4;
  }
  return top - y;
}

/** A titled section of fields, kept on one page; returns the y below it. */
function fieldSection(doc: Doc, title: string, fields: Field[], y: number, columns: number): number {
  const height = BAND_HEIGHT + 3 + fieldGrid(doc, fields, MARGIN, 0, CONTENT_WIDTH, columns, false);
  const top = ensureSpace(doc, y, height);
  band(doc, title, MARGIN, top, CONTENT_WIDTH);
  fieldGrid(doc, fields, MARGIN, top + BAND_HEIGHT + 3, CONTENT_WIDTH, columns, true);
  return top + height + GAP;
}

function drawHeader(doc: Doc, data: InvoicePdfData, logo: Buffer | undefined): number {
  const boxWidth = 200;
  const boxX = PAGE_WIDTH - MARGIN - boxWidth;
  let issuerX = MARGIN;
  if (logo) {
    doc.image(logo, MARGIN, MARGIN, { fit: LOGO_BOX });
    issuerX += LOGO_BOX[0] + 10;
  }
  const issuerWidth = boxX - 12 - issuerX;
  let left = MARGIN;
  left += write(doc, data.issuer.name, issuerX, left, issuerWidth, { font: BOLD, size: 12 }) + 4;
  for (const field of [
    ['RFC del emisor', data.issuer.rfc],
    ['Régimen fiscal', coded(data.issuer.taxRegime)],
    ['Lugar de expedición (C.P.)', data.placeOfIssue],
  ] satisfies Field[]) {
    drawField(doc, field, issuerX, left, issuerWidth);
    left += fieldHeight(doc, field, issuerWidth) + 3;
  }
  if (logo) left = Math.max(left, MARGIN + LOGO_BOX[1]);

  const seriesFolio = [data.series, data.folio].filter((s) => s !== undefined && s !== '').join('-');
  const boxFields: Field[] = [
    ['Tipo de comprobante', coded(data.receiptType)],
    ['Serie y folio', seriesFolio],
    ['Fecha y hora de emisión', data.date],
    ['Folio fiscal (UUID)', data.stamp.uuid],
  ];
  let right = MARGIN + band(doc, 'CFDI 4.0', boxX, MARGIN, boxWidth) + 3;
  right += fieldGrid(doc, boxFields, boxX, right, boxWidth, 1, true);
  doc
    .rect(boxX, MARGIN, boxWidth, right - MARGIN)
    .lineWidth(0.5)
    .stroke(RULE_COLOR);
  return Math.max(left, right) + GAP;
}

function receiverFields(data: InvoicePdfData): Field[] {
  const r = data.receiver;
  const fields: Field[] = [
    ['Nombre', r.name],
    ['RFC', r.rfc],
    ['Domicilio fiscal (C.P.)', r.taxZipCode],
    ['Régimen fiscal', coded(r.taxRegime)],
    ['Uso del CFDI', coded(r.cfdiUse)],
  ];
  if (r.foreignResidence) fields.push(['Residencia fiscal', coded(r.foreignResidence)]);
  if (r.foreignTaxId) fields.push(['Núm. de registro de identidad fiscal', r.foreignTaxId]);
  return fields;
}

function documentFields(data: InvoicePdfData): Field[] {
  const fields: Field[] = [
    ['Forma de pago', coded(data.paymentForm)],
    ['Método de pago', coded(data.paymentMethod)],
    ['Moneda', coded(data.currency)],
    ['Tipo de cambio', data.exchangeRate ?? ''],
    ['Exportación', coded(data.exportation)],
  ];
  if (data.paymentConditions) fields.push(['Condiciones de pago', data.paymentConditions]);
  return fields;
}

function drawRelated(doc: Doc, data: InvoicePdfData, y: number): number {
  let top = y;
  for (const group of data.relatedCfdis) {
    top = fieldSection(
      doc,
      'CFDI relacionados',
      [
        ['Tipo de relación', coded(group.relationType)],
        ['Folios fiscales (UUID)', group.uuids.join(', ')],
      ],
      top,
      1,
    );
  }
  return top;
}

interface ColumnLayout {
  width: number;
  align: Align;
}

interface Column extends ColumnLayout {
  header: string;
  value: (c: InvoicePdfConcept) => string;
}

const CONCEPT_COLUMNS: Column[] = [
  { header: 'Clave prod./serv.', width: 50, align: 'left', value: (c) => c.productKey.code },
  { header: 'No. identificación', width: 56, align: 'left', value: (c) => c.identification ?? '' },
  { header: 'Cantidad', width: 42, align: 'right', value: (c) => c.quantity },
  { header: 'Clave unidad', width: 44, align: 'left', value: (c) => (c.unit ? `${c.unitKey.code} ${c.unit}` : c.unitKey.code) },
  { header: 'Descripción', width: 0, align: 'left', value: (c) => c.description },
  { header: 'Valor unitario', width: 56, align: 'right', value: (c) => amount(c.unitValue) },
  { header: 'Importe', width: 56, align: 'right', value: (c) => amount(c.amount) },
  { header: 'Descuento', width: 50, align: 'right', value: (c) => amount(c.discount) },
  { header: 'Obj. imp.', width: 26, align: 'center', value: (c) => c.taxObject.code },
];
// The description takes whatever width the other columns leave.
CONCEPT_COLUMNS[4]!.width = CONTENT_WIDTH - CONCEPT_COLUMNS.reduce((sum, c) => sum + c.width, 0);

const TAX_COLUMNS: (ColumnLayout & { header: string })[] = [
  { header: 'Tipo', width: 48, align: 'left' },
  { header: 'Impuesto', width: 56, align: 'left' },
  { header: 'Base', width: 62, align: 'right' },
  { header: 'Tipo factor', width: 46, align: 'left' },
  { header: 'Tasa o cuota', width: 52, align: 'right' },
  { header: 'Importe', width: 62, align: 'right' },
];
const TAX_TABLE_WIDTH = TAX_COLUMNS.reduce((sum, c) => sum + c.width, 0);

const CELL_STYLE: TextStyle = { size: 7 };
const HEADER_STYLE: TextStyle = { font: BOLD, size: 6.5 };
const DETAIL_STYLE: TextStyle = { size: 6.5, color: LABEL_COLOR };

/** One table row (drawn, or only measured); returns its height. A header row gets a band behind it. */
function tableRow(doc: Doc, columns: readonly ColumnLayout[], cells: readonly string[], x: number, y: number, header: boolean, draw: boolean): number {
  const style = header ? HEADER_STYLE : CELL_STYLE;
  const cellHeight = (column: ColumnLayout, i: number): number => heightOf(doc, cells[i] ?? '', column.width - 2 * PAD, { ...style, align: column.align });
  const height = Math.max(...columns.map(cellHeight)) + 2 * PAD;
  if (!draw) return height;
  if (header)
    doc
      .rect(
        x,
        y,
        columns.reduce((sum, c) => sum + c.width, 0),
        height,
      )
      .fill(BAND_COLOR);
  let cx = x;
  columns.forEach((column, i) => {
    write(doc, cells[i] ?? '', cx + PAD, y + PAD, column.width - 2 * PAD, { ...style, align: column.align });
    cx += column.width;
  });
  return height;
}

function taxText(kind: string, t: InvoicePdfTax): string {
  const parts = [`${kind} ${t.tax.description ?? t.tax.code}`];
  if (t.base !== undefined) parts.push(`base ${amount(t.base)}`);
  if (t.factor === 'Exento') parts.push('exento');
  else if (t.factor !== undefined) parts.push(`${t.factor.toLowerCase()} ${t.rate ?? ''}`);
  if (t.amount !== undefined) parts.push(`importe ${amount(t.amount)}`);
  return parts.join(', ');
}

/** The catalog descriptions and taxes of a concept, printed under its row. */
function conceptDetail(c: InvoicePdfConcept): string {
  const parts = [
    `Prod./serv.: ${coded(c.productKey)}`,
    `Unidad: ${coded(c.unitKey)}`,
    `Objeto de impuesto: ${coded(c.taxObject)}`,
    ...c.transfers.map((t) => taxText('Traslado', t)),
    ...c.withholdings.map((t) => taxText('Retención', t)),
  ];
  return parts.join('  ·  ');
}

function drawConcepts(doc: Doc, data: InvoicePdfData, y: number): number {
  const headers = CONCEPT_COLUMNS.map((c) => c.header);
  const headerHeight = tableRow(doc, CONCEPT_COLUMNS, headers, MARGIN, 0, true, false);
  // The detail line starts under the second column, so the product key stands out on the left.
  const detailX = MARGIN + CONCEPT_COLUMNS[0]!.width + PAD;
  const detailWidth = CONTENT_WIDTH - CONCEPT_COLUMNS[0]!.width - 2 * PAD;
  // The title and the column headers never end a page alone: room for a first short row too.
  let top = ensureSpace(doc, y, BAND_HEIGHT + headerHeight + 30);
  top += band(doc, 'Conceptos', MARGIN, top, CONTENT_WIDTH);
  top += tableRow(doc, CONCEPT_COLUMNS, headers, MARGIN, top, true, true);
  for (const concept of data.concepts) {
    const cells = CONCEPT_COLUMNS.map((c) => c.value(concept));
    const detail = conceptDetail(concept);
    const rowHeight = tableRow(doc, CONCEPT_COLUMNS, cells, MARGIN, 0, false, false);
    const height = rowHeight + heightOf(doc, detail, detailWidth, DETAIL_STYLE) + PAD;
    const fitted = ensureSpace(doc, top, height);
    // A new page repeats the column headers.
    if (fitted !== top) top = fitted + tableRow(doc, CONCEPT_COLUMNS, headers, MARGIN, fitted, true, true);
    tableRow(doc, CONCEPT_COLUMNS, cells, MARGIN, top, false, true);
    write(doc, detail, detailX, top + rowHeight - PAD, detailWidth, DETAIL_STYLE);
    top += height;
    doc
      .moveTo(MARGIN, top)
      .lineTo(MARGIN + CONTENT_WIDTH, top)
      .lineWidth(0.5)
      .stroke(RULE_COLOR);
  }
  return top + GAP;
}

function taxRows(data: InvoicePdfData): string[][] {
  const row = (kind: string, t: InvoicePdfTax): string[] => [kind, coded(t.tax), amount(t.base), t.factor ?? '', t.rate ?? '', amount(t.amount)];
  return [...(data.taxes?.transfers ?? []).map((t) => row('Traslado', t)), ...(data.taxes?.withholdings ?? []).map((t) => row('Retención', t))];
}

/** The document's Impuestos node as a table (drawn, or only measured); returns its height, 0 without taxes. */
function taxTable(doc: Doc, rows: string[][], x: number, y: number, draw: boolean): number {
  if (rows.length === 0) return 0;
  let top = y;
  if (draw) band(doc, 'Impuestos del comprobante', x, top, TAX_TABLE_WIDTH);
  top += BAND_HEIGHT;
  top += tableRow(
    doc,
    TAX_COLUMNS,
    TAX_COLUMNS.map((c) => c.header),
    x,
    top,
    true,
    draw,
  );
  for (const cells of rows) top += tableRow(doc, TAX_COLUMNS, cells, x, top, false, draw);
  return top - y + GAP;
}

function totalsRows(data: InvoicePdfData): Field[] {
  const rows: Field[] = [['Subtotal', amount(data.subtotal)]];
  if (data.discount !== undefined) rows.push(['Descuento', amount(data.discount)]);
  if (data.taxes?.totalTransferred !== undefined) rows.push(['Impuestos trasladados', amount(data.taxes.totalTransferred)]);
  if (data.taxes?.totalWithheld !== undefined) rows.push(['Impuestos retenidos', amount(data.taxes.totalWithheld)]);
  rows.push([`Total (${data.currency.code})`, amount(data.total)]);
  return rows;
}

const TOTAL_LINE = 12;

function drawTotals(doc: Doc, data: InvoicePdfData, y: number): number {
  const rows = taxRows(data);
  const words: Field = ['Importe con letra', amountInWords(data.total, data.currency.code)];
  const totals = totalsRows(data);
  const leftHeight = taxTable(doc, rows, MARGIN, 0, false) + fieldHeight(doc, words, TAX_TABLE_WIDTH - PAD);
  const height = Math.max(leftHeight, totals.length * TOTAL_LINE + 4);
  const top = ensureSpace(doc, y, height);

  const wordsY = top + taxTable(doc, rows, MARGIN, top, true);
  drawField(doc, words, MARGIN + PAD, wordsY, TAX_TABLE_WIDTH - PAD);

  const boxWidth = 190;
  const boxX = PAGE_WIDTH - MARGIN - boxWidth;
  totals.forEach(([label, value], i) => {
    const last = i === totals.length - 1;
    const rowY = top + i * TOTAL_LINE;
    if (last) doc.rect(boxX, rowY - 2, boxWidth, TOTAL_LINE + 2).fill(BAND_COLOR);
    const style: TextStyle = { font: last ? BOLD : REGULAR, size: last ? 9 : 8 };
    write(doc, label, boxX + PAD, rowY, boxWidth / 2, style);
    write(doc, value, boxX + boxWidth / 2, rowY, boxWidth / 2 - PAD, { ...style, align: 'right' });
  });
  return top + height + GAP;
}

const PAID_DOCUMENT_COLUMNS: ColumnLayout[] = [
  { width: 150, align: 'left' },
  { width: 60, align: 'left' },
  { width: 40, align: 'left' },
  { width: 50, align: 'right' },
  { width: 44, align: 'center' },
  { width: 64, align: 'right' },
  { width: 66, align: 'right' },
  { width: 66, align: 'right' },
];
const PAID_DOCUMENT_HEADERS = ['Documento relacionado (UUID)', 'Serie y folio', 'Moneda', 'Equivalencia', 'Parcialidad', 'Saldo anterior', 'Importe pagado', 'Saldo insoluto'];

/** A type P's payment: when, how and how much, then each invoice it pays with its installment and balances. */
function drawPayment(doc: Doc, payment: InvoicePdfPayment, y: number): number {
  let top = fieldSection(
    doc,
    'Pago recibido (complemento para recepción de pagos 2.0)',
    [
      ['Fecha de pago', payment.date],
      ['Forma de pago', coded(payment.form)],
      ['Moneda', coded(payment.currency)],
      ['Tipo de cambio', payment.exchangeRate ?? ''],
      ['Monto', amount(payment.amount)],
      ['Número de operación', payment.operationNumber ?? ''],
    ],
    y,
    3,
  );
  const headerHeight = tableRow(doc, PAID_DOCUMENT_COLUMNS, PAID_DOCUMENT_HEADERS, MARGIN, 0, true, false);
  top = ensureSpace(doc, top, headerHeight + 20);
  top += tableRow(doc, PAID_DOCUMENT_COLUMNS, PAID_DOCUMENT_HEADERS, MARGIN, top, true, true);
  for (const d of payment.documents) {
    const cells = [
      d.uuid,
      [d.series, d.folio].filter(Boolean).join('-'),
      d.currency.code,
      d.equivalence ?? '',
      d.installment,
      amount(d.previousBalance),
      amount(d.amountPaid),
      amount(d.remainingBalance),
    ];
    const height = tableRow(doc, PAID_DOCUMENT_COLUMNS, cells, MARGIN, 0, false, false);
    const fitted = ensureSpace(doc, top, height);
    if (fitted !== top) top = fitted + tableRow(doc, PAID_DOCUMENT_COLUMNS, PAID_DOCUMENT_HEADERS, MARGIN, fitted, true, true);
    top += tableRow(doc, PAID_DOCUMENT_COLUMNS, cells, MARGIN, top, false, true);
  }
  return top + GAP;
}

/** In place of the totals, which Anexo 20 fixes at 0 XXX for a type P: the payments and their total in MXN. */
function drawPayments(doc: Doc, payments: NonNullable<InvoicePdfData['payments']>, y: number): number {
  let top = y;
  for (const payment of payments.items) top = drawPayment(doc, payment, top);
  return fieldSection(doc, 'Totales de los pagos', [['Monto total de los pagos (MXN)', amount(payments.totalAmount)]], top, 3);
}

const SEAL_STYLE: TextStyle = { size: 6 };

function drawStamp(doc: Doc, data: InvoicePdfData, y: number): void {
  const s = data.stamp;
  const infoX = MARGIN + QR_SIZE + 10;
  const infoWidth = CONTENT_WIDTH - QR_SIZE - 10;
  const info: Field[] = [
    ['Folio fiscal (UUID)', s.uuid],
    ['Fecha y hora de certificación', s.stampedAt],
    ['No. de serie del CSD del emisor', data.certificateNumber],
    ['No. de serie del certificado del SAT', s.satCertificateNumber],
    ['RFC del proveedor de certificación', s.pacRfc],
  ];
  if (s.legend) info.push(['Leyenda', s.legend]);
  const seals: Field[] = [
    ['Sello digital del CFDI', s.cfdSeal],
    ['Sello digital del SAT', s.satSeal],
    ['Cadena original del complemento de certificación digital del SAT', s.originalString],
  ];
  const sealHeight = ([label, value]: Field): number => heightOf(doc, label, CONTENT_WIDTH, LABEL_STYLE) + 1 + heightOf(doc, value, CONTENT_WIDTH, SEAL_STYLE) + 4;
  const upper = Math.max(QR_SIZE, fieldGrid(doc, info, infoX, 0, infoWidth, 2, false));
  const height = BAND_HEIGHT + 4 + upper + 4 + seals.reduce((sum, f) => sum + sealHeight(f), 0);

  let top = ensureSpace(doc, y, height);
  top += band(doc, 'Timbre fiscal digital', MARGIN, top, CONTENT_WIDTH) + 4;
  // One pixel per module: viewers scale it up without interpolation, so the modules stay sharp at any zoom.
  const qr = renderQrPng(verificationUrl(data), { size: 1, margin: 4 });
  doc.image(qr, MARGIN, top, { width: QR_SIZE, height: QR_SIZE });
  fieldGrid(doc, info, infoX, top, infoWidth, 2, true);
  top += upper + 4;
  for (const [label, value] of seals) {
    const labelHeight = write(doc, label, MARGIN, top, CONTENT_WIDTH, LABEL_STYLE);
    write(doc, value, MARGIN, top + labelHeight + 1, CONTENT_WIDTH, SEAL_STYLE);
    top += sealHeight([label, value]);
  }
}

/** The legend and page numbers on every page, once the page count is known. */
function drawFooters(doc: Doc, data: InvoicePdfData): void {
  const { start, count } = doc.bufferedPageRange();
  for (let i = start; i < start + count; i++) {
    doc.switchToPage(i);
    const y = PAGE_HEIGHT - MARGIN - FOOTER_HEIGHT + 8;
    doc
      .moveTo(MARGIN, y)
      .lineTo(MARGIN + CONTENT_WIDTH, y)
      .lineWidth(0.5)
      .stroke(RULE_COLOR);
    const style: TextStyle = { size: 6.5, color: LABEL_COLOR };
    const legend = `Este documento es una representación impresa de un CFDI 4.0. Folio fiscal: ${data.stamp.uuid}`;
    write(doc, legend, MARGIN, y + 4, CONTENT_WIDTH * 0.8, style);
    write(doc, `Página ${i - start + 1} de ${count}`, MARGIN + CONTENT_WIDTH * 0.8, y + 4, CONTENT_WIDTH * 0.2, { ...style, align: 'right' });
  }
}

export async function renderInvoicePdf(data: InvoicePdfData, options: RenderInvoicePdfOptions): Promise<Buffer> {
  useStandardFontTables();
  const doc = new PDFDocument({
    size: 'LETTER',
    margins: { top: MARGIN, bottom: MARGIN, left: MARGIN, right: MARGIN },
    bufferPages: true,
    lang: 'es-MX',
    // A fixed CreationDate also fixes the file ID pdfkit derives from the info: same data, same bytes.
    info: {
      Title: `CFDI ${data.stamp.uuid}`,
      Author: data.issuer.name,
      Subject: 'Representación impresa de un CFDI 4.0',
      CreationDate: stampInstant(data.stamp.stampedAt),
    },
  });
  gatherPageContentAsText(doc);
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  let y = drawHeader(doc, data, options.logo);
  y = fieldSection(doc, 'Receptor', receiverFields(data), y, 3);
  y = fieldSection(doc, 'Datos del comprobante', documentFields(data), y, 3);
  if (data.globalInformation) {
    const g = data.globalInformation;
    y = fieldSection(
      doc,
      'Información global',
      [
        ['Periodicidad', coded(g.periodicity)],
        ['Meses', coded(g.months)],
        ['Año', g.year],
      ],
      y,
      3,
    );
  }
  y = drawRelated(doc, data, y);
  y = drawConcepts(doc, data, y);
  y = data.payments ? drawPayments(doc, data.payments, y) : drawTotals(doc, data, y);
  drawStamp(doc, data, y);
  drawFooters(doc, data);
  doc.end();
  return done;
}
