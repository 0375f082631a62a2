/**
 * The waiting page of an offline ticket (issue #33): the ticket is valid but the store has not sent its sale
 * yet. It shows what the ticket says and lets the buyer leave their tax data and e-mail for when the sale
 * arrives (the page's script posts them to /v1/public/qrs/offline-claim).
 */
import { csfHtml, customerFieldsHtml, jsonBlock, layout, offlineTicketHtml, type FormCatalogs, type OfflineTicketSummary, type Support } from './render-buyer-page.js';

export const OFFLINE_PENDING_TITLE = 'La tienda aún no envía esta compra';

/** The waiting ticket and the form for the buyer's data (404: the sale is not there yet). */
export function renderOfflinePendingPage(
  ticket: OfflineTicketSummary,
  options: { link: Record<'v' | 'k' | 'w' | 'a' | 's' | 'm', string>; catalogs: FormCatalogs; storeZip: string; support: Support; allowGenericRfc: boolean },
): string {
  const data = {
    state: 'offline_pending',
    link: options.link,
    storeZip: options.storeZip,
    allowGenericRfc: options.allowGenericRfc,
    regimes: options.catalogs.regimes,
    uses: options.catalogs.uses,
  };
  const body = `<section class="state state-offline_pending" aria-labelledby="state-title"><h1 id="state-title">${OFFLINE_PENDING_TITLE}</h1>
<p>Tu ticket es válido, pero se hizo cuando la tienda no tenía internet y la tienda todavía no nos manda la compra.</p></section>
<section class="sale" aria-labelledby="ticket-title">
<h2 id="ticket-title">Tu ticket</h2>
${offlineTicketHtml(ticket, false)}
</section>
<section id="fill-step" aria-labelledby="fill-title">
<h2 id="fill-title" tabindex="-1">Deja tus datos para tu factura</h2>
<p>Cuando la tienda nos envíe la compra, emitimos tu factura con estos datos y te la enviamos por correo. Si no puede emitirse, te escribimos para decirte por qué.</p>
${csfHtml()}
<form id="tax-form" novalidate>
<p id="form-error" class="form-error" role="alert" tabindex="-1" hidden></p>
${customerFieldsHtml()}
<button type="submit" id="leave-data" class="button">Enviarme la factura cuando llegue la compra</button>
</form>
</section>
<section id="claim-step" aria-labelledby="claim-title" hidden>
<h2 id="claim-title" tabindex="-1">Listo, guardamos tus datos</h2>
<p id="claim-note" role="status"></p>
<p class="note">No necesitas volver a escanear el QR. Si te equivocaste en algún dato, puedes corregirlo mientras la tienda no envíe la compra.</p>
<button type="button" id="claim-edit" class="button secondary">Corregir mis datos</button>
</section>
<noscript><p class="form-error">Para dejar tus datos, activa JavaScript en tu navegador. También puedes volver a escanear el QR más tarde.</p></noscript>
<script type="application/json" id="page-data">${jsonBlock(data)}</script>`;
  return layout(OFFLINE_PENDING_TITLE, body, options.support, true);
}
