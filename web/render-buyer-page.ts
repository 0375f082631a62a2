/**
 * The buyer's pages as server-rendered HTML (Spanish, mobile first): the sale with its form, the page
 * to type a ticket's short code, and one page per state in which the buyer cannot go on. No inline
 * script or style, so the Content-Security-Policy can forbid both; the form's data rides in a JSON block.
 */
import type { buyerSaleView } from '../api/contract/buyer/buyer-sale-view.js';
import { dec, formatAmount } from '../shared/domain/money.js';
import { assetUrl } from './buyer-assets.js';
import { mexicoLongDate } from '../shared/domain/time-zone.js';

export type BuyerSaleView = ReturnType<typeof buyerSaleView>;

export interface Support {
  merchantName: string;
  email: string | null;
  phone: string | null;
}

/** Catalog rows the form filters on the phone: [code, description, natural person, legal person] (+ receiver regimes for uses). */
export interface FormCatalogs {
  regimes: [string, string, boolean, boolean][];
  uses: [string, string, boolean, boolean, string[]][];
}

export const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

// "</script>" inside the JSON block must not end it.
export const jsonBlock = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

/** A URL of ours as a path, so the page works on whatever host serves it. */
export function localPath(url: string): string {
  const parsed = new URL(url, 'http://local');
  return `${parsed.pathname}${parsed.search}`;
}

function supportHtml(support: Support | undefined): string {
  if (!support || (!support.email && !support.phone)) {
    return '<footer class="support"><p>¿Dudas con tu factura? Pregunta en la tienda donde compraste.</p></footer>';
  }
  const ways = [
    support.email ? `escribe a <a href="mailto:${escape(support.email)}">${escape(support.email)}</a>` : '',
    support.phone ? `llama al <a href="tel:${escape(support.phone.replace(/[^0-9+]/g, ''))}">${escape(support.phone)}</a>` : '',
  ]
    .filter(Boolean)
    .join(' o ');
  return `<footer class="support"><p>¿Dudas con tu factura? ${escape(support.merchantName)}: ${ways}.</p></footer>`;
}

/** The page around a body: head, stylesheet, the support footer and (with `script`) the page's script. */
export function layout(title: string, body: string, support: Support | undefined, script = false): string {
  return `<!doctype html>
<html lang="es-MX"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex">
<title>${escape(title)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${assetUrl('buyer-page.css')}">
</head><body>
<main>${body}</main>
${supportHtml(support)}
${script ? `<script src="${assetUrl('buyer-page.js')}" defer></script>` : ''}
</body></html>`;
}

function money(value: number, currency: string): string {
  return `$${formatAmount(String(value))} ${escape(currency)}`;
}

const TAX_NAMES: Record<string, string> = { '001': 'ISR', '002': 'IVA', '003': 'IEPS' };

function taxLabel(tax: { type: string; tax: string; factor: string; rate: string | null }): string {
  const name = TAX_NAMES[tax.tax] ?? tax.tax;
  const rate = tax.rate === null ? '' : tax.factor === 'Tasa' ? ` ${dec(tax.rate).times(100).toString()}%` : ` $${tax.rate} por unidad`;
  const kind = tax.type === 'Retencion' ? 'retenido' : tax.factor === 'Exento' ? 'exento' : 'trasladado';
  return `${name}${rate} ${kind}`;
}

function header(view: BuyerSaleView): string {
  const logo = view.merchant.app_logo_url
    ? `<img class="logo${view.merchant.logo_animation === 'BOUNCE' ? ' bounce' : ''}" src="${escape(localPath(view.merchant.app_logo_url))}" alt="" width="64" height="64">`
    : '';
  return `<header class="store">${logo}<div><p class="eyebrow">Factura tu compra en</p><h1>${escape(view.merchant.name)}</h1></div></header>`;
}

function conceptsHtml(view: BuyerSaleView): string {
  const rows = view.operation_data
    .map((c) => {
      const taxes = c.taxes.map((t) => `<li>${escape(taxLabel(t))}${t.amount === null ? '' : `: ${money(t.amount, view.currency)}`}</li>`).join('');
      return `<li class="concept"><div class="concept-line"><span class="concept-name">${escape(c.description)}</span><span class="amount">${money(c.amount, view.currency)}</span></div>
<p class="sat">${escape(formatAmount(String(c.quantity), 0))} × ${money(c.unit_price, view.currency)} · ${escape(c.sat_product_service_desc ?? c.sat_product_service_key)} (${escape(c.sat_product_service_key)}) · ${escape(c.sat_unit_desc ?? c.sat_unit_key)}</p>
${c.discount ? `<p class="sat">Descuento: ${money(c.discount, view.currency)}</p>` : ''}${taxes ? `<ul class="taxes">${taxes}</ul>` : ''}</li>`;
    })
    .join('\n');
  return `<ul class="concepts">${rows}</ul>`;
}

function totalsHtml(view: BuyerSaleView): string {
  const t = view.totals;
  const rows: [string, string][] = [['Subtotal', money(t.subtotal, view.currency)]];
  if (t.discount) rows.push(['Descuento', `−${money(t.discount, view.currency)}`]);
  if (t.transferred_taxes) rows.push(['Impuestos trasladados', money(t.transferred_taxes, view.currency)]);
  if (t.withheld_taxes) rows.push(['Impuestos retenidos', `−${money(t.withheld_taxes, view.currency)}`]);
  rows.push(['Total', money(t.total, view.currency)]);
  const fx = view.exchange_rate && view.currency !== 'MXN' ? `<p class="sat">Tipo de cambio: ${escape(String(view.exchange_rate))} MXN por ${escape(view.currency)}</p>` : '';
  return `<dl class="totals" id="sale-totals">${rows.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('')}</dl>${fx}`;
}

// A 24-hour clock: es-MX's default "12:00 a.m." for midnight reads as noon to many (issue #39).
const MEXICO_MOMENT = new Intl.DateTimeFormat('es-MX', { timeZone: 'America/Mexico_City', dateStyle: 'long', timeStyle: 'short', hourCycle: 'h23' });
const MEXICO_DAY = new Intl.DateTimeFormat('es-MX', { timeZone: 'America/Mexico_City', dateStyle: 'long' });

/** A moment as a `<time>` in central Mexico's time, on a 24-hour clock ("27 de noviembre de 2026 a las 12:48"). */
export function mexicoMomentHtml(iso: string): string {
  return `<time datetime="${escape(iso)}">${escape(MEXICO_MOMENT.format(new Date(iso)))}</time>`;
}

/**
 * The invoicing deadline. One falling at midnight is said as the end of the day before ("hasta el final del 30
 * de noviembre"): "hasta el 1 de diciembre a las 00:00" is read by many as the end of 1 December.
 */
export function deadlineHtml(iso: string): string {
  const at = new Date(iso);
  if (!MEXICO_MOMENT.format(at).endsWith(' 00:00')) return `hasta el ${mexicoMomentHtml(iso)} (hora del centro de México)`;
  const dayBefore = MEXICO_DAY.format(new Date(at.getTime() - 1));
  return `hasta el final del <time datetime="${escape(iso)}">${escape(dayBefore)}</time> (medianoche, hora del centro de México)`;
}

function expiryHtml(expiresAt: string): string {
  return `<p class="expiry">Puedes facturar ${deadlineHtml(expiresAt)}.</p>`;
}

function field(name: string, label: string, control: string, hint = ''): string {
  return `<div class="field" id="${name}-field"><label for="${name}">${label}</label>${hint ? `<p class="hint" id="hint-${name}">${hint}</p>` : ''}${control}<p class="error" id="err-${name}" role="alert" hidden></p></div>`;
}

function describedBy(name: string, hint: boolean): string {
  return `aria-describedby="${hint ? `hint-${name} ` : ''}err-${name}"`;
}

/** "Agregar otro ticket": further tickets of the same issuer in the same invoice (the page's script drives it). */
function moreTicketsHtml(issuerName: string): string {
  return `<section id="more-tickets" aria-labelledby="more-title">
<h2 id="more-title">¿Más tickets en la misma factura?</h2>
<p class="hint" id="hint-more">Escribe el código impreso en otro ticket de ${escape(issuerName)} (misma moneda y método de pago) o pega el enlace de su QR.</p>
<form id="ticket-form" novalidate><label for="more-ticket">Código o enlace del otro ticket</label>
<input id="more-ticket" maxlength="600" autocomplete="off" autocapitalize="characters" spellcheck="false" aria-describedby="hint-more">
<p id="ticket-error" class="error" role="alert" hidden></p>
<button type="submit" id="add-ticket" class="button secondary">Agregar otro ticket</button></form>
<ul class="tickets" id="ticket-list" hidden></ul>
<dl class="totals" id="combined-totals" hidden></dl>
</section>`;
}

/**
 * The buyer's tax data and e-mail, each with its label, hint and error slot (the script fills the lists and
 * places the API's refusals), and "remember me": the sale's form and the waiting ticket's form.
 */
export function customerFieldsHtml(): string {
  return `${field('rfc', 'RFC', `<input id="rfc" name="rfc" required minlength="12" maxlength="13" autocomplete="off" autocapitalize="characters" spellcheck="false" ${describedBy('rfc', true)}>`, '12 caracteres si es empresa, 13 si es persona.')}
${field('name', 'Nombre o razón social', `<input id="name" name="name" required maxlength="300" autocomplete="name" autocapitalize="characters" ${describedBy('name', true)}>`, 'Como aparece en tu constancia, sin «SA DE CV».')}
${field('tax_regime', 'Régimen fiscal', `<select id="tax_regime" name="tax_regime" required ${describedBy('tax_regime', false)}></select>`)}
${field('postal_code', 'Código postal fiscal', `<input id="postal_code" name="postal_code" required inputmode="numeric" pattern="[0-9]{5}" maxlength="5" autocomplete="postal-code" ${describedBy('postal_code', true)}>`, 'El de tu domicilio fiscal, 5 dígitos.')}
${field('cfdi_use', 'Uso del CFDI', `<select id="cfdi_use" name="cfdi_use" required ${describedBy('cfdi_use', false)}></select>`)}
${field('tax_residence', 'País de residencia fiscal', `<input id="tax_residence" name="tax_residence" maxlength="3" autocapitalize="characters" ${describedBy('tax_residence', true)}>`, 'Clave de 3 letras, por ejemplo USA.')}
${field('email', 'Correo electrónico', `<input id="email" name="email" type="email" required maxlength="254" autocomplete="email" ${describedBy('email', true)}>`, 'Te enviamos ahí la factura (PDF y XML).')}
<div class="check"><input type="checkbox" id="remember" name="remember"><label for="remember">Recordar mis datos en este teléfono</label></div>`;
}

/** "Fill from my CSF": the sale's form and the waiting ticket's form (the page's script reads the file through the API). */
export function csfHtml(): string {
  return `<div class="csf">
<p><strong>¿Tienes tu Constancia de Situación Fiscal?</strong> Llenamos tus datos con los del SAT (opcional).</p>
<div class="csf-actions">
<label class="button secondary" for="csf-camera">Escanear el código QR de la constancia</label>
<input class="visually-hidden" type="file" id="csf-camera" accept="image/*" capture="environment">
<label class="button secondary" for="csf-file">Subir PDF o foto</label>
<input class="visually-hidden" type="file" id="csf-file" accept="application/pdf,image/*">
</div>
<p id="csf-note" class="note" role="status" aria-live="polite"></p>
</div>`;
}

function formHtml(): string {
  return `<section id="fill-step" aria-labelledby="fill-title">
<h2 id="fill-title" tabindex="-1">Tus datos fiscales</h2>
${csfHtml()}
<form id="tax-form" novalidate>
<p id="form-error" class="form-error" role="alert" tabindex="-1" hidden></p>
<p id="fill-note" class="note" role="status" hidden></p>
${customerFieldsHtml()}
<button type="submit" id="continue" class="button">Continuar</button>
</form>
</section>
<section id="review-step" aria-labelledby="review-title" hidden>
<h2 id="review-title" tabindex="-1">Revisa y confirma</h2>
<p id="review-note" class="form-error" role="alert" hidden></p>
<dl class="summary" id="review-customer"></dl>
<h3>Lo que se factura</h3>
<ul class="tickets" id="review-tickets" hidden></ul>
<h3>Total de tu factura</h3>
<dl class="totals" id="review-totals"></dl>
<p id="withholding-note" class="note" hidden>Como persona moral, la tienda te retiene ISR (régimen RESICO): el total cambia.</p>
<button type="button" id="confirm" class="button">Emitir mi factura</button>
<button type="button" id="edit" class="button secondary">Corregir mis datos</button>
</section>
<section id="progress-step" aria-labelledby="progress-title" hidden>
<h2 id="progress-title" tabindex="-1">Estamos emitiendo tu factura…</h2>
<div class="spinner" aria-hidden="true"></div>
<p role="status" aria-live="polite">El SAT está certificando tu factura. Suele tardar unos segundos; no cierres esta página.</p>
<p id="progress-slow" class="note" hidden>Está tardando más de lo normal. Tu factura no se pierde: también te llegará por correo.</p>
</section>
<section id="result-step" aria-labelledby="result-title" hidden>
<h2 id="result-title" tabindex="-1">¡Listo! Tu factura fue emitida</h2>
<p>Folio fiscal (UUID):</p><p class="uuid" id="result-uuid"></p>
<p class="links" id="result-links"><a class="button" id="view-pdf" href="#" target="_blank" rel="noopener">Ver PDF</a>
<a class="button secondary" id="download-pdf" href="#">Descargar PDF</a>
<a class="button secondary" id="download-xml" href="#">Descargar XML</a>
<button type="button" class="button secondary" id="share" hidden>Compartir</button></p>
<p id="result-note" class="note" hidden></p>
<form id="email-form" novalidate><label for="resend-email">Enviar a mi correo</label>
<div class="inline"><input id="resend-email" type="email" autocomplete="email" maxlength="254"><button type="submit" id="send-email" class="button secondary">Enviar</button></div>
<label for="resend-rfc">Tu RFC (solo para enviarla a un correo distinto del que diste al confirmar)</label>
<input id="resend-rfc" autocomplete="off" autocapitalize="characters" maxlength="13">
<p id="email-note" class="note" role="status" aria-live="polite"></p></form>
</section>`;
}

/** The sale to review and the form to fill (200). */
export function renderSalePage(
  view: BuyerSaleView,
  options: { link: { v: string; t: string; m: string }; catalogs: FormCatalogs; storeZip: string; support: Support; allowGenericRfc: boolean },
): string {
  const data = {
    link: options.link,
    currency: view.currency,
    storeZip: options.storeZip,
    confirmation: view.confirmation,
    allowGenericRfc: options.allowGenericRfc,
    regimes: options.catalogs.regimes,
    uses: options.catalogs.uses,
  };
  const body = `${header(view)}
<section class="sale" aria-labelledby="sale-title">
<h2 id="sale-title">Tu compra</h2>
<p class="issuer">Factura emitida por <strong>${escape(view.issuer.name)}</strong><br>RFC <span class="mono">${escape(view.issuer.rfc)}</span></p>
${conceptsHtml(view)}
${totalsHtml(view)}
<p class="sat">Pago: ${escape(view.sat_payment_form_desc ?? view.sat_payment_form)} · ${escape(view.sat_payment_method_desc ?? view.sat_payment_method)}</p>
${expiryHtml(view.expires_at)}
</section>
${moreTicketsHtml(view.issuer.name)}
${formHtml()}
<noscript><p class="form-error">Para facturar, activa JavaScript en tu navegador.</p></noscript>
<script type="application/json" id="page-data">${jsonBlock(data)}</script>`;
  return layout(`Factura tu compra en ${view.merchant.name}`, body, options.support, true);
}

export type StatePageKind =
  | 'expired'
  | 'globally_invoiced'
  | 'cancelled'
  | 'invoice_cancelled'
  | 'invoiced'
  | 'bad_link'
  | 'not_found'
  | 'store_inactive'
  | 'code_not_found'
  | 'rate_limited'
  | 'offline_code_not_arrived'
  | 'offline_closed'
  | 'offline_key_revoked';

const STATES: Record<StatePageKind, { title: string; text: string }> = {
  expired: { title: 'Este código ya venció', text: 'El plazo para facturar esta compra con este código terminó. Pide a la tienda un ticket o código nuevo.' },
  globally_invoiced: {
    title: 'Esta compra ya se reportó al SAT',
    text: 'Como nadie la facturó a tiempo, la tienda la incluyó en su factura global al público en general y ya no puede facturarse a tu nombre. Si la necesitas, habla con la tienda.',
  },
  cancelled: { title: 'La tienda canceló este código', text: 'Este código ya no sirve para facturar. Si aún necesitas tu factura, pide ayuda a la tienda.' },
  invoice_cancelled: {
    title: 'La tienda canceló tu factura',
    text: 'Esta factura ya no es válida ante el SAT: no la uses ni la deduzcas. Si necesitas una nueva, habla con la tienda.',
  },
  invoiced: { title: 'Factura emitida', text: 'Ya se emitió la factura de esta compra.' },
  bad_link: { title: 'Este enlace no es válido', text: 'El enlace está incompleto o alterado. Vuelve a escanear el código QR de tu ticket o escribe el código impreso.' },
  not_found: { title: 'No encontramos esta compra', text: 'Este código no corresponde a ninguna compra. Vuelve a escanear el QR de tu ticket o escribe el código impreso.' },
  store_inactive: { title: 'La tienda no puede facturar por ahora', text: 'La tienda no tiene activa la facturación en este momento. Contáctala para obtener tu factura.' },
  code_not_found: { title: 'No encontramos ese código', text: 'Revisa el código impreso en tu ticket y escríbelo de nuevo.' },
  rate_limited: { title: 'Demasiados intentos', text: 'Hiciste muchos intentos seguidos. Espera un minuto y vuelve a intentarlo.' },
  offline_code_not_arrived: {
    title: 'Esa compra aún no nos llega',
    text: 'Los códigos de 12 caracteres son de tickets impresos cuando la tienda no tenía internet: la compra aparece aquí cuando la tienda nos la envía. Escanea el QR de tu ticket para dejar tus datos y recibir la factura por correo en cuanto llegue, o escribe el código más tarde.',
  },
  offline_closed: {
    title: 'Esta compra ya no puede facturarse aquí',
    text: 'La tienda no nos envió esta compra dentro del plazo para facturarla. Habla con la tienda para obtener tu factura.',
  },
  offline_key_revoked: {
    title: 'Esta compra ya no puede facturarse aquí',
    text: 'La tienda dejó de usar la llave con la que se imprimió este ticket sin internet, así que ya no podemos facturarlo aquí. Habla con la tienda para obtener tu factura.',
  },
};

/** What an offline ticket says, on its waiting page and on the page that says it can no longer be invoiced. */
export interface OfflineTicketSummary {
  storeName: string;
  saleId: string;
  amount: string;
  /** The currency of the key that signed it (a ticket carries none). */
  currency: string;
  soldAt: Date;
  /** The last moment the store may send the sale. */
  closesAt: Date;
}

/** The ticket as printed, with the deadline for the store to send it (`closed`: that deadline has passed). */
export function offlineTicketHtml(ticket: OfflineTicketSummary, closed: boolean): string {
  // The ticket carries no currency: its key's (issue #39).
  return `<dl class="summary" id="offline-ticket"><dt>Tienda</dt><dd>${escape(ticket.storeName)}</dd>
<dt>Venta</dt><dd class="mono">${escape(ticket.saleId)}</dd>
<dt>Total del ticket</dt><dd>$${escape(formatAmount(ticket.amount))} ${escape(ticket.currency)}</dd>
<dt>Fecha</dt><dd>${mexicoMomentHtml(ticket.soldAt.toISOString())} (hora del centro de México)</dd>
<dt>${closed ? 'Plazo de la tienda para enviarla' : 'La tienda puede enviarla'}</dt><dd id="offline-deadline">${deadlineHtml(ticket.closesAt.toISOString())}</dd></dl>`;
}

/**
 * An invoiced sale: when and its UUID, and a form for the buyer's RFC that gives the files (the ticket may
 * have been thrown away and picked up: the files carry the buyer's tax data). The script drives the form.
 */
function invoicedHtml(invoice: { uuid: string; issued_at: string }): string {
  return `<dl class="summary invoiced"><dt>Emitida el</dt><dd>${escape(mexicoLongDate(invoice.issued_at))}</dd></dl>
<p>Folio fiscal (UUID):</p><p class="uuid">${escape(invoice.uuid)}</p>
<form id="files-form" novalidate><label for="files-rfc">Para ver o descargar la factura, escribe el RFC con el que se emitió</label>
<div class="inline"><input id="files-rfc" autocomplete="off" autocapitalize="characters" spellcheck="false" maxlength="13" required><button type="submit" id="get-files" class="button">Ver mi factura</button></div>
<p id="files-note" class="note" role="status" aria-live="polite"></p></form>
<p class="links" id="files-links" hidden><a class="button" id="view-pdf" href="#" target="_blank" rel="noopener">Ver PDF</a>
<a class="button secondary" id="download-pdf" href="#">Descargar PDF</a>
<a class="button secondary" id="download-xml" href="#">Descargar XML</a></p>
<p class="note">¿No tienes el RFC a la mano? Abre la factura desde el correo con el que te la enviamos.</p>
<noscript><p class="form-error">Para ver tu factura aquí, activa JavaScript en tu navegador.</p></noscript>`;
}

/**
 * A state in which the buyer cannot go on, with what to do next; `invoice` (with the page's `link`) adds
 * the date and UUID of an invoiced sale and the RFC form that gives its files.
 */
export function renderStatePage(
  kind: StatePageKind,
  options: {
    support?: Support;
    invoice?: { uuid: string; issued_at: string } | null;
    link?: { v: string; t: string; m: string };
    cancelled?: { uuid: string; issued_at: string; cancelled_at: string };
    offlineTicket?: OfflineTicketSummary;
  },
): string {
  const state = STATES[kind];
  const invoice = options.invoice;
  const cancelled = options.cancelled;
  const links = cancelled
    ? `<p>Folio fiscal (UUID) de la factura cancelada:</p><p class="uuid">${escape(cancelled.uuid)}</p>
<dl class="cancelled"><dt>Emitida</dt><dd>${escape(mexicoLongDate(cancelled.issued_at))}</dd><dt>Cancelada ante el SAT</dt><dd>${escape(mexicoLongDate(cancelled.cancelled_at))}</dd></dl>`
    : invoice && options.link
      ? `${invoicedHtml(invoice)}
<script type="application/json" id="page-data">${jsonBlock({ state: 'invoiced', link: options.link })}</script>`
      : options.offlineTicket
        ? offlineTicketHtml(options.offlineTicket, true)
        : '';
  const retry = kind === 'bad_link' || kind === 'not_found' || kind === 'code_not_found' || kind === 'offline_code_not_arrived' ? codeFormHtml() : '';
  const body = `<section class="state state-${kind}" aria-labelledby="state-title"><h1 id="state-title">${state.title}</h1><p>${state.text}</p>${links}</section>${retry}`;
  // Only the invoiced sale's RFC form needs the script.
  return layout(state.title, body, options.support, !cancelled && !!invoice && !!options.link);
}

function codeFormHtml(): string {
  return `<section aria-labelledby="code-title"><h2 id="code-title">¿El QR no se lee bien?</h2>
<form method="get" action="/q" class="code-form"><label for="code">Escribe el código impreso en tu ticket</label>
<p class="hint" id="hint-code">10 letras y números, por ejemplo K7QXM-3PA9T (12 en un ticket impreso sin internet, por ejemplo 7KQ4-MXR2-PAB3).</p>
<div class="inline"><input id="code" name="code" required maxlength="16" autocomplete="off" autocapitalize="characters" spellcheck="false" aria-describedby="hint-code">
<button type="submit" class="button">Buscar</button></div></form></section>`;
}

/** /q without a link: where the buyer types the ticket's short code. Works without JavaScript. */
export function renderCodePage(): string {
  const body = `<section aria-labelledby="start-title"><h1 id="start-title">Factura tu compra</h1>
<p>Escanea el código QR de tu ticket con la cámara de tu teléfono, o escribe aquí el código impreso debajo de él.</p></section>${codeFormHtml()}`;
  return layout('Factura tu compra', body, undefined);
}
