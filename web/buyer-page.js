// The buyer's page: fill once, review the final totals, confirm once, follow the stamping, get the invoice.
// Plain browser JavaScript, no framework and no build step: the server renders the sale; this script only
// drives the form against the buyer's JSON API (/v1/public/qrs/*) with the QR link's three parameters.
// The same tax-data fields serve an offline ticket whose sale has not arrived (its link's six parameters).
(function () {
  'use strict';
  var dataNode = document.getElementById('page-data');
  if (!dataNode) return;
  var page = JSON.parse(dataNode.textContent);
  var link = page.link;
  if (page.state === 'invoiced') { invoicedPage(); return; }
  var form = document.getElementById('tax-form');
  var FIELDS = ['rfc', 'name', 'tax_regime', 'postal_code', 'cfdi_use', 'email', 'tax_residence'];
  var GENERIC_RFC = 'XAXX010101000';
  var FOREIGN_RFC = 'XEXX010101000';
  var DRAFT_KEY = 'af-draft-' + (link.t || link.m);
  var TICKETS_KEY = 'af-tickets-' + link.t;
  var REMEMBER_KEY = 'af-tax-data';

  // What the API's field codes mean to a buyer, in plain Spanish.
  var MESSAGES = {
    rfc_invalid: 'Escribe un RFC válido: 12 caracteres si es empresa, 13 si es persona.',
    rfc_check_digit: '¿Seguro? El último carácter de tu RFC no es su dígito verificador. Revísalo en tu constancia; si así aparece, puedes continuar.',
    generic_rfc_not_offered: 'Sin RFC no necesitas factura: tu compra se incluye en la factura global de la tienda.',
    cfdi_use_not_offered: 'Esta tienda no factura con ese uso de CFDI; elige uno de la lista.',
    cfdi_use_not_for_sales: 'Ese uso de CFDI no es para una compra; elige uno de la lista.',
    rfc_not_registered: 'El SAT no tiene registrado este RFC. Revísalo en tu constancia.',
    legal_name_mismatch: 'El nombre no coincide con el que el SAT tiene para este RFC. Escríbelo exactamente como en tu Constancia de Situación Fiscal.',
    name_has_company_suffix: 'Escribe la razón social sin el régimen societario (por ejemplo, sin «SA DE CV»).',
    name_not_allowed: 'Con el RFC genérico escribe tu nombre; «PUBLICO EN GENERAL» es solo para facturas globales.',
    postal_code_mismatch: 'El código postal no coincide con el domicilio fiscal que el SAT tiene para este RFC.',
    tax_regime_not_allowed: 'Este régimen fiscal no corresponde a este RFC.',
    tax_regime_mismatch: 'El SAT no tiene este régimen fiscal registrado para este RFC. Elige el de tu constancia.',
    tax_regime_unknown: 'Elige tu régimen fiscal de la lista.',
    cfdi_use_not_allowed: 'Este uso de CFDI no está permitido para el régimen elegido.',
    cfdi_use_unknown: 'Elige el uso del CFDI de la lista.',
    tax_residence_required: 'Escribe tu país de residencia fiscal (clave de 3 letras, por ejemplo USA).',
    tax_residence_not_allowed: 'El país de residencia solo se pide con el RFC de extranjero.'
  };
  // Why another ticket cannot join this invoice (details of tickets_not_combinable).
  var TICKET_MESSAGES = {
    qr_already_invoiced: 'Ese ticket ya está facturado.',
    qr_expired: 'Ese ticket ya venció.',
    qr_cancelled: 'La tienda canceló ese ticket.',
    qr_globally_invoiced: 'Ese ticket ya se reportó en la factura global de la tienda.',
    already_confirmed: 'Ese ticket ya se está facturando en otra solicitud.',
    store_inactive: 'La tienda de ese ticket no puede facturar por ahora.',
    qr_not_found: 'No encontramos ese ticket. Revisa el código impreso.',
    invalid_ticket: 'Escribe los 10 o 12 caracteres impresos bajo el QR (por ejemplo 7KQ4M-XR2PA) o pega el enlace de su QR.',
    invalid_signature: 'Ese enlace no es válido; vuelve a escanear el QR del ticket.',
    other_issuer: 'Ese ticket es de otra empresa: cada empresa emite su propia factura.',
    other_mode: 'Ese ticket es de prueba y este no (o al revés).',
    currency_differs: 'Ese ticket está en otra moneda: una factura tiene una sola moneda.',
    exchange_rate_differs: 'Ese ticket tiene otro tipo de cambio.',
    payment_method_differs: 'Ese ticket tiene otro método de pago (PUE o PPD): una factura tiene uno solo.',
    export_code_differs: 'Ese ticket tiene otra clave de exportación.',
    receipt_type_differs: 'Ese ticket es de otro tipo de comprobante.',
    has_own_cfdi_nodes: 'Ese ticket debe facturarse por separado.',
    duplicate_ticket: 'Ese ticket ya está en la lista.'
  };
  var TICKET_FALLBACK = 'Ese ticket no puede agregarse a esta factura.';
  var FIELD_MESSAGES = {
    rfc: 'Escribe tu RFC (12 o 13 caracteres).',
    name: 'Escribe tu nombre o razón social como aparece en tu constancia.',
    tax_regime: 'Elige tu régimen fiscal.',
    postal_code: 'Escribe los 5 dígitos del código postal de tu domicilio fiscal.',
    cfdi_use: 'Elige el uso que darás a la factura.',
    email: 'Escribe un correo electrónico válido.',
    tax_residence: 'Escribe la clave de 3 letras de tu país (por ejemplo USA).'
  };

  function $(id) { return document.getElementById(id); }
  var STEPS = page.state === 'offline_pending' ? ['fill-step', 'claim-step'] : ['fill-step', 'review-step', 'progress-step', 'result-step'];
  function show(id) {
    STEPS.forEach(function (s) { $(s).hidden = s !== id; });
    var heading = $(id).querySelector('h2');
    if (heading) heading.focus();
  }
  function input(name) { return form.elements.namedItem(name); }
  function value(name) { var el = input(name); return el ? el.value.trim() : ''; }

  // --- RFC: upper-cased and checked as typed (the server checks again) -------------------------------
  var RFC_SHAPE = /^[A-ZÑ&]{3,4}[0-9]{6}[A-Z0-9]{3}$/;
  var DIGITS = '0123456789ABCDEFGHIJKLMN&OPQRSTUVWXYZ Ñ';
  function rfcCheckDigit(rfc) {
    var padded = rfc.length === 12 ? ' ' + rfc : rfc;
    var sum = 0;
    for (var i = 0; i < 12; i++) sum += DIGITS.indexOf(padded.charAt(i)) * (13 - i);
    var rest = sum % 11;
    return rest === 0 ? '0' : rest === 1 ? 'A' : String(11 - rest);
  }
  function rfcProblem(rfc) {
    if (rfc === '') return '';
    if (rfc === GENERIC_RFC && !page.allowGenericRfc) return MESSAGES.generic_rfc_not_offered;
    return !RFC_SHAPE.test(rfc) && rfc.length >= 12 ? MESSAGES.rfc_invalid : '';
  }
  // SAT has issued some RFCs whose last character is not the computed check digit: a warning, never a refusal.
  function rfcWarning(rfc) {
    if (!RFC_SHAPE.test(rfc) || rfc === GENERIC_RFC || rfc === FOREIGN_RFC) return '';
    return rfcCheckDigit(rfc) === rfc.charAt(rfc.length - 1) ? '' : MESSAGES.rfc_check_digit;
  }
  function personType(rfc) { return rfc.length === 12 ? 'legal' : rfc.length === 13 ? 'natural' : ''; }

  // --- Lists filtered by the RFC's person type and the chosen regime (c_RegimenFiscal, c_UsoCFDI) -------
  function fillSelect(select, options, placeholder) {
    var keep = select.value;
    select.textContent = '';
    var first = document.createElement('option');
    first.value = '';
    first.textContent = placeholder;
    select.appendChild(first);
    options.forEach(function (o) {
      var opt = document.createElement('option');
      opt.value = o[0];
      opt.textContent = o[0] + ' · ' + o[1];
      select.appendChild(opt);
    });
    if (options.some(function (o) { return o[0] === keep; })) select.value = keep;
    else if (options.length === 1) select.value = options[0][0];
  }
  var csfRegimes = null; // the regimes SAT lists for this RFC, once read from the CSF
  function refreshRegimes() {
    var rfc = value('rfc');
    var type = personType(rfc);
    var list = page.regimes.filter(function (r) {
      if (rfc === GENERIC_RFC || rfc === FOREIGN_RFC) return r[0] === '616';
      if (csfRegimes && csfRegimes.rfc === rfc) return csfRegimes.codes.indexOf(r[0]) >= 0;
      return type === 'legal' ? r[3] : type === 'natural' ? r[2] : true;
    });
    fillSelect(input('tax_regime'), list, 'Elige tu régimen fiscal');
    refreshUses();
  }
  function refreshUses() {
    var rfc = value('rfc');
    var regime = value('tax_regime');
    var type = personType(rfc);
    var list = page.uses.filter(function (u) {
      if (rfc === GENERIC_RFC || rfc === FOREIGN_RFC) return u[0] === 'S01';
      if (!regime) return false;
      return u[4].indexOf(regime) >= 0 && (type === 'legal' ? u[3] : u[2]);
    });
    fillSelect(input('cfdi_use'), list, regime || rfc === GENERIC_RFC || rfc === FOREIGN_RFC ? 'Elige el uso del CFDI' : 'Primero elige tu régimen fiscal');
    $('tax_residence-field').hidden = rfc !== FOREIGN_RFC;
    if (rfc === GENERIC_RFC && !value('postal_code')) input('postal_code').value = page.storeZip;
  }

  // --- Errors next to their field ---------------------------------------------------------------------
  function setFieldError(field, message, warningOnly) {
    var el = input(field);
    var slot = $('err-' + field);
    if (!el || !slot) return false;
    slot.textContent = message;
    slot.hidden = !message;
    slot.classList.toggle('warning', !!warningOnly);
    if (message && !warningOnly) el.setAttribute('aria-invalid', 'true'); else el.removeAttribute('aria-invalid');
    return true;
  }
  function clearErrors() {
    FIELDS.forEach(function (f) { setFieldError(f, ''); });
    $('form-error').hidden = true;
  }
  function showFormError(message) {
    $('form-error').textContent = message;
    $('form-error').hidden = false;
  }
  function showApiError(error) {
    clearErrors();
    var first = null;
    var unplaced = [];
    if ($('fill-note')) $('fill-note').hidden = true;
    (error.details || []).forEach(function (d) {
      if (/^additional_tickets\[/.test(String(d.field))) { unplaced.push(TICKET_MESSAGES[d.code] || TICKET_FALLBACK); return; }
      var field = String(d.field || '').replace(/^customer\./, '');
      var message = MESSAGES[d.code] || FIELD_MESSAGES[field] || 'Revisa este dato.';
      if (setFieldError(field, message)) first = first || field;
      else if (MESSAGES[d.code]) unplaced.push(MESSAGES[d.code]);
    });
    if (first) {
      showFormError('Revisa los datos marcados' + (error.details.some(function (d) { return d.source === 'pac' || d.source === 'sat'; }) ? ': el SAT no los reconoce como están.' : '.'));
      input(first).focus();
    } else {
      showFormError(humanError(error) + (unplaced.length ? ' ' + unplaced.join(' ') : ''));
    }
  }
  function humanError(error) {
    switch (error.code) {
      case 'rate_limited': return 'Demasiados intentos seguidos. Espera un minuto e inténtalo de nuevo.';
      case 'qr_expired': return 'Este código ya venció. Pide a la tienda un ticket nuevo.';
      case 'qr_cancelled': return 'La tienda canceló este código.';
      case 'invoice_cancelled': return 'La tienda canceló tu factura: ya no es válida, no la deduzcas.';
      case 'invoice_refused': return 'No se pudo emitir la factura por un problema de la tienda. Contacta a la tienda; tus datos están bien.';
      case 'tickets_not_combinable': return 'Revisa los tickets agregados:';
      case 'network': return 'No hay conexión. Revisa tu internet e inténtalo de nuevo.';
      case 'buyer_rfc_required': return 'Para enviarla a un correo distinto del que diste al confirmar, escribe también tu RFC.';
      case 'buyer_rfc_mismatch': return 'Ese RFC no es el de la factura. Revísalo, o déjalo vacío para enviarla al correo que diste al confirmar.';
      case 'email_limit_reached': return 'Ya enviamos esta factura varias veces hoy. Puedes descargarla aquí mismo, o pedir el envío mañana.';
      case 'qr_already_invoiced': return 'Esta compra ya está facturada. Vuelve a abrir el enlace de tu ticket para ver la factura.';
      case 'already_confirmed': return 'Esta compra ya se está facturando con otros datos fiscales.';
      case 'qr_globally_invoiced': return 'Esta compra ya se reportó en la factura global de la tienda y no puede facturarse a tu nombre.';
      case 'qr_not_found': return 'No encontramos esta compra. Vuelve a escanear el QR de tu ticket.';
      case 'offline_code_not_arrived': return 'Ese código es de un ticket impreso sin internet y la tienda aún no nos envía la compra. Inténtalo más tarde.';
      case 'invalid_signature': case 'unsupported_version': return 'Este enlace no es válido. Vuelve a escanear el QR de tu ticket.';
      case 'store_inactive': case 'issuer_inactive': return 'La tienda no puede facturar por ahora. Contáctala para obtener tu factura.';
      case 'invoice_not_ready': return 'Tu factura aún no está lista. Inténtalo en un momento.';
      case 'customer_invalid': return 'Revisa tus datos fiscales.';
      case 'offline_claim_taken': return 'Otra persona ya dejó datos fiscales para este ticket y solo ella puede cambiarlos. Si fuiste tú desde otro teléfono o navegador, corrígelos desde ahí; si no, habla con la tienda.';
      case 'offline_claim_settled': return 'Ya usamos los datos que dejaste para este ticket. Vuelve a escanear el QR para ver cómo quedó tu factura.';
      case 'offline_ticket_closed': return 'La tienda no nos envió esta compra a tiempo para facturarla. Habla con la tienda para obtener tu factura.';
      case 'validation_failed': return 'Faltan datos o alguno no es válido. Revísalos e inténtalo de nuevo.';
      case 'review_outdated': return 'La factura cambió desde que la revisaste. Revisa el nuevo total antes de emitirla.';
      case 'payload_too_large': return 'El archivo es demasiado grande.';
      case 'dependency_unavailable': case 'service_unavailable': return 'El servicio no responde en este momento. Inténtalo en un minuto.';
      default: return 'Algo salió mal. Inténtalo de nuevo en un momento.';
    }
  }

  // --- The buyer's API -----------------------------------------------------------------------------
  function api(method, path, body) {
    var init = { method: method, headers: { Accept: 'application/json' }, credentials: 'same-origin' };
    if (body instanceof FormData) init.body = body;
    else if (body) { init.headers['Content-Type'] = 'application/json'; init.body = JSON.stringify(body); }
    return fetch(path, init).then(function (res) {
      return res.json().catch(function () { return {}; }).then(function (json) {
        return { status: res.status, body: json };
      });
    }, function () { return { status: 0, body: { error: { code: 'network' } } }; });
  }
  // Every parameter of the link: a sale's v, t and m, or an offline ticket's v, k, w, a, s and m.
  function linkQuery() { return Object.keys(link).map(function (k) { return k + '=' + encodeURIComponent(link[k]); }).join('&'); }
  function customer() {
    var c = { rfc: value('rfc'), name: value('name').toUpperCase(), tax_regime: value('tax_regime'), postal_code: value('postal_code'), cfdi_use: value('cfdi_use'), email: value('email') };
    if (c.rfc === FOREIGN_RFC) c.tax_residence = value('tax_residence').toUpperCase();
    return c;
  }

  // --- Draft kept across reloads (this tab), and "remember me" on this phone ---------------------------
  function saveDraft() {
    var c = customer();
    try {
      sessionStorage.setItem(DRAFT_KEY, JSON.stringify(c));
      if (input('remember').checked) localStorage.setItem(REMEMBER_KEY, JSON.stringify(c));
      else localStorage.removeItem(REMEMBER_KEY);
    } catch (e) { /* private mode: nothing kept, nothing lost */ }
  }
  function restore() {
    var saved = null;
    try {
      saved = JSON.parse(sessionStorage.getItem(DRAFT_KEY) || 'null');
      var remembered = JSON.parse(localStorage.getItem(REMEMBER_KEY) || 'null');
      if (remembered) input('remember').checked = true;
      saved = saved || remembered;
    } catch (e) { saved = null; }
    if (!saved) return;
    input('rfc').value = saved.rfc || '';
    refreshRegimes();
    ['name', 'postal_code', 'email', 'tax_residence'].forEach(function (f) { if (saved[f]) input(f).value = saved[f]; });
    if (saved.tax_regime) { input('tax_regime').value = saved.tax_regime; refreshUses(); }
    if (saved.cfdi_use) input('cfdi_use').value = saved.cfdi_use;
  }

  // --- Money as the API answers it (numbers already rounded by the service; only formatted here) -------
  function money(n) {
    var value = Number(n);
    return (value < 0 ? '-$' : '$') + Math.abs(value).toLocaleString('es-MX', { minimumFractionDigits: 2, maximumFractionDigits: 6 }) + ' ' + page.currency;
  }
  // What the review shows, and the exact request (tickets included) confirm sends with its digest.
  var reviewed = null;
  function renderReview(review, request) {
    reviewed = { request: request, digest: review.review_digest };
    var c = review.customer;
    var totals = review.totals;
    renderReviewTickets(review.tickets || []);
    var who = $('review-customer');
    who.textContent = '';
    [['RFC', c.rfc], ['Nombre', c.name], ['Régimen', optionText('tax_regime')], ['Código postal', c.postal_code], ['Uso del CFDI', optionText('cfdi_use')], ['Correo', c.email]]
      .forEach(function (row) {
        var dt = document.createElement('dt'); dt.textContent = row[0];
        var dd = document.createElement('dd'); dd.textContent = row[1];
        who.appendChild(dt); who.appendChild(dd);
      });
    var sums = $('review-totals');
    sums.textContent = '';
    var rows = [['Subtotal', totals.subtotal]];
    if (totals.discount) rows.push(['Descuento', -totals.discount]);
    if (totals.transferred_taxes) rows.push(['Impuestos trasladados', totals.transferred_taxes]);
    if (totals.withheld_taxes) rows.push(['Impuestos retenidos', -totals.withheld_taxes]);
    rows.push(['Total', totals.total]);
    rows.forEach(function (row) {
      var dt = document.createElement('dt'); dt.textContent = row[0];
      var dd = document.createElement('dd'); dd.textContent = money(row[1]);
      sums.appendChild(dt); sums.appendChild(dd);
    });
    $('withholding-note').hidden = !totals.withheld_taxes;
  }
  function renderReviewTickets(shown) {
    var list = $('review-tickets');
    list.textContent = '';
    list.hidden = shown.length === 0;
    shown.forEach(function (t, i) {
      var li = document.createElement('li');
      li.className = 'ticket reviewed';
      var head = document.createElement('p');
      head.className = 'ticket-head';
      head.textContent = (i === 0 ? 'Este ticket' : 'Ticket ' + (t.short_code || i + 1)) + ' · ' + t.store_name + ' · ' + money(t.amount);
      li.appendChild(head);
      var concepts = document.createElement('ul');
      concepts.className = 'ticket-concepts';
      (t.operation_data || []).forEach(function (concept) {
        var item = document.createElement('li');
        item.textContent = concept.quantity.toLocaleString('es-MX') + ' × ' + concept.description + ' · ' + money(concept.amount);
        concepts.appendChild(item);
      });
      li.appendChild(concepts);
      list.appendChild(li);
    });
  }
  // The tickets changed after the review: it no longer shows what would be stamped, so back to the form.
  function leaveReview() {
    reviewed = null;
    if ($('review-step').hidden) return;
    show('fill-step');
    $('fill-note').textContent = 'Cambiaste los tickets de la factura: pulsa «Continuar» para revisar el nuevo total antes de emitirla.';
    $('fill-note').hidden = false;
  }
  function optionText(name) { var s = input(name); return s.selectedIndex > 0 ? s.options[s.selectedIndex].textContent : ''; }

  var busy = false;
  function lock(button, on) { busy = on; button.disabled = on; button.setAttribute('aria-busy', on ? 'true' : 'false'); }

  bindCustomerFields();
  ['csf-camera', 'csf-file'].forEach(function (id) { $(id).addEventListener('change', function () { readCsf($(id)); }); });
  if (page.state === 'offline_pending') { offlinePendingPage(); return; }

  // --- Steps ------------------------------------------------------------------------------------------

  form.addEventListener('submit', function (e) {
    e.preventDefault();
    if (busy) return;
    clearErrors();
    saveDraft();
    var button = $('continue');
    lock(button, true);
    $('fill-note').hidden = true;
    var request = withTickets({ v: link.v, t: link.t, m: link.m, customer: customer() });
    api('POST', '/v1/public/qrs/preview', request).then(function (res) {
      lock(button, false);
      if (res.status === 200) { renderReview(res.body, request); $('review-note').hidden = true; show('review-step'); }
      else showApiError(res.body.error || {});
    });
  });
  $('edit').addEventListener('click', function () { reviewed = null; show('fill-step'); input('rfc').focus(); });
  $('confirm').addEventListener('click', function () {
    if (busy || !reviewed) return;
    var button = $('confirm');
    var request = reviewed.request;
    lock(button, true);
    // Exactly what the review shows: its request and digest (the service refuses anything else with 409).
    api('POST', '/v1/public/qrs/confirm', Object.assign({ review_digest: reviewed.digest }, request)).then(function (res) {
      lock(button, false);
      var error = res.body.error || {};
      if (res.status === 202) { follow(res.body); return; }
      if (res.status === 409 && error.code === 'already_confirmed' && error.confirmation) { follow(error.confirmation); return; }
      if (res.status === 409 && error.code === 'review_outdated' && error.review) {
        renderReview(error.review, request);
        $('review-note').textContent = humanError(error);
        $('review-note').hidden = false;
        show('review-step');
        return;
      }
      show('fill-step');
      showApiError(error);
    });
  });

  // --- Further tickets in the same invoice ("Agregar otro ticket") --------------------------------------
  var tickets = [];
  try { tickets = JSON.parse(sessionStorage.getItem(TICKETS_KEY) || '[]'); } catch (e) { tickets = []; }
  function withTickets(body) { if (tickets.length) body.additional_tickets = tickets; return body; }
  function keepTickets() { try { sessionStorage.setItem(TICKETS_KEY, JSON.stringify(tickets)); } catch (e) { /* nothing kept */ } }
  function renderTickets(list, shown, removable) {
    list.textContent = '';
    list.hidden = !shown || shown.length < 2;
    (shown || []).forEach(function (t, i) {
      var li = document.createElement('li');
      li.className = 'ticket';
      var text = document.createElement('span');
      text.textContent = (i === 0 ? 'Este ticket' : 'Ticket ' + (t.short_code || i + 1)) + ' · ' + t.store_name + ' · ' + money(t.amount);
      li.appendChild(text);
      if (removable && i > 0) {
        var remove = document.createElement('button');
        remove.type = 'button';
        remove.className = 'button secondary remove';
        remove.textContent = 'Quitar';
        remove.setAttribute('aria-label', 'Quitar el ticket ' + (t.short_code || i + 1));
        remove.addEventListener('click', function () { reviewTickets(tickets.filter(function (_, j) { return j !== i - 1; })); });
        li.appendChild(remove);
      }
      list.appendChild(li);
    });
  }
  function renderCombinedTotals(totals) {
    var sums = $('combined-totals');
    sums.textContent = '';
    sums.hidden = !totals || tickets.length === 0;
    if (sums.hidden) return;
    [['Tickets', String(tickets.length + 1)], ['Total de la factura', money(totals.total)]].forEach(function (row) {
      var dt = document.createElement('dt'); dt.textContent = row[0];
      var dd = document.createElement('dd'); dd.textContent = row[1];
      sums.appendChild(dt); sums.appendChild(dd);
    });
  }
  function ticketError(message) { $('ticket-error').textContent = message; $('ticket-error').hidden = !message; }
  // Asks the service whether these tickets make one invoice; only a list it accepts is kept.
  function reviewTickets(candidate, onRefused) {
    if (candidate.length === 0) {
      tickets = []; keepTickets(); leaveReview(); renderTickets($('ticket-list'), null, true); renderCombinedTotals(null); ticketError('');
      return Promise.resolve();
    }
    return api('POST', '/v1/public/qrs/tickets', { v: link.v, t: link.t, m: link.m, additional_tickets: candidate }).then(function (res) {
      if (res.status === 200) {
        tickets = candidate; keepTickets(); leaveReview(); ticketError('');
        renderTickets($('ticket-list'), res.body.tickets, true);
        renderCombinedTotals(res.body.totals);
        return;
      }
      var error = res.body.error || {};
      var detail = (error.details || [])[0];
      ticketError(detail ? TICKET_MESSAGES[detail.code] || TICKET_FALLBACK : humanError(error));
      if (onRefused) onRefused();
    });
  }
  $('ticket-form').addEventListener('submit', function (e) {
    e.preventDefault();
    var typed = $('more-ticket').value.trim();
    if (!typed || busy) return;
    var button = $('add-ticket');
    lock(button, true);
    reviewTickets(tickets.concat([typed])).then(function () {
      lock(button, false);
      if ($('ticket-error').hidden) $('more-ticket').value = '';
    });
  });
  if (tickets.length) reviewTickets(tickets, function () { tickets = []; keepTickets(); });

  // Once confirmed nothing can be added to the invoice, and its deadline no longer matters.
  function confirmed() {
    reviewed = null;
    $('more-tickets').hidden = true;
    var expiry = document.querySelector('.expiry');
    if (expiry) expiry.hidden = true;
  }

  // A refused stamping is corrected and confirmed again: the tickets and the deadline matter again.
  function reopen() {
    $('more-tickets').hidden = false;
    var expiry = document.querySelector('.expiry');
    if (expiry) expiry.hidden = false;
  }

  // Polls the status quickly at first (the fake PAC answers in well under a second), then more slowly.
  function follow(confirmation) {
    confirmed();
    show('progress-step');
    var started = Date.now();
    function check(c) {
      if (c && c.status === 'ACTIVE' && c.invoice) { showResult(c.invoice); return; }
      if (c && c.status === 'REFUSED') { reopen(); show('fill-step'); showApiError(c.error || {}); return; }
      var elapsed = Date.now() - started;
      if (elapsed > 120000) { $('progress-slow').hidden = false; }
      setTimeout(function () {
        api('GET', '/v1/public/qrs/status?' + linkQuery()).then(function (res) { check(res.status === 200 ? res.body.confirmation : null); });
      }, elapsed < 5000 ? 300 : elapsed < 30000 ? 1000 : 3000);
    }
    check(confirmation);
  }

  function relative(url) { try { var u = new URL(url, location.href); return u.pathname + u.search; } catch (e) { return url; } }
  // The invoice's files are not in what the ticket shows (they carry the buyer's tax data): asked for with the RFC.
  function invoiceFiles(rfc) {
    return api('POST', '/v1/public/qrs/invoice-files', { v: link.v, t: link.t, m: link.m, rfc: rfc });
  }
  function filesError(error) {
    switch (error.code) {
      case 'buyer_rfc_mismatch': return 'Ese RFC no es el de la factura. Revísalo en tu constancia.';
      case 'buyer_rfc_generic': return 'Esta factura se emitió con un RFC genérico: ábrela desde el correo al que te la enviamos.';
      case 'rfc_attempts_exceeded': return 'Demasiados RFC equivocados para este ticket. Inténtalo mañana, o abre la factura desde tu correo.';
      case 'validation_failed': return 'Escribe el RFC con el que se emitió la factura.';
      default: return humanError(error);
    }
  }
  function setFileLinks(files) {
    $('view-pdf').href = relative(files.pdf_url);
    $('download-pdf').href = relative(files.pdf_url) + '&download=1';
    $('download-xml').href = relative(files.xml_url) + '&download=1';
  }
  function showResult(invoice) {
    $('result-uuid').textContent = invoice.uuid;
    if (value('email')) $('resend-email').value = value('email');
    try { sessionStorage.removeItem(DRAFT_KEY); sessionStorage.removeItem(TICKETS_KEY); } catch (e) { /* nothing kept */ }
    invoiceFiles(value('rfc')).then(function (res) {
      var ok = res.status === 200;
      $('result-links').hidden = !ok;
      $('result-note').hidden = ok;
      if (ok) setFileLinks(res.body);
      else {
        var code = (res.body.error || {}).code;
        // A tab opened while stamping has no RFC typed: the re-opened link asks for it.
        $('result-note').textContent = code === 'buyer_rfc_generic' ? 'Te enviamos la factura a tu correo: ábrela desde ahí.'
          : code === 'validation_failed' || code === 'buyer_rfc_mismatch' ? 'Para ver o descargar la factura, vuelve a abrir el enlace de tu ticket y escribe tu RFC.'
          : filesError(res.body.error || {});
      }
      if (ok && navigator.share) {
        $('share').hidden = false;
        $('share').onclick = function () {
          navigator.share({ title: 'Mi factura ' + invoice.uuid, url: new URL(relative(res.body.pdf_url), location.href).href }).catch(function () { /* dismissed */ });
        };
      }
      show('result-step');
      window.dispatchEvent(new CustomEvent('invoice-ready', { detail: invoice.uuid }));
    });
  }
  $('email-form').addEventListener('submit', function (e) {
    e.preventDefault();
    var button = $('send-email');
    var note = $('email-note');
    lock(button, true);
    var request = { v: link.v, t: link.t, m: link.m };
    var email = $('resend-email').value.trim();
    var rfc = $('resend-rfc').value.trim() || value('rfc');
    if (email) request.email = email;
    if (rfc) request.rfc = rfc;
    api('POST', '/v1/public/qrs/email', request).then(function (res) {
      lock(button, false);
      note.textContent = res.status === 202 ? 'Listo: enviamos la factura a ' + res.body.to + '.' : humanError(res.body.error || {});
    });
  });

  // --- An invoiced sale re-opened: its files for whoever types the buyer's RFC -----------------------------
  function invoicedPage() {
    var filesForm = $('files-form');
    if (!filesForm) return;
    var rfcInput = $('files-rfc');
    rfcInput.addEventListener('input', function () { rfcInput.value = rfcInput.value.toUpperCase().replace(/\s/g, ''); });
    filesForm.addEventListener('submit', function (e) {
      e.preventDefault();
      var button = $('get-files');
      var note = $('files-note');
      var rfc = rfcInput.value.trim();
      if (!rfc) { note.textContent = 'Escribe el RFC con el que se emitió la factura.'; rfcInput.focus(); return; }
      button.disabled = true;
      note.textContent = '';
      invoiceFiles(rfc).then(function (res) {
        button.disabled = false;
        if (res.status !== 200) {
          $('files-links').hidden = true;
          rfcInput.setAttribute('aria-invalid', 'true');
          note.textContent = filesError(res.body.error || {});
          return;
        }
        rfcInput.removeAttribute('aria-invalid');
        setFileLinks(res.body);
        $('files-links').hidden = false;
        note.textContent = 'Listo: los enlaces sirven durante una hora; después vuelve a escribir tu RFC.';
        $('view-pdf').focus();
      });
    });
  }

  // --- The tax-data fields as the buyer types (both pages) --------------------------------------------
  function bindCustomerFields() {
    input('rfc').addEventListener('input', function () {
      var el = input('rfc');
      var at = el.selectionStart;
      el.value = el.value.toUpperCase().replace(/\s/g, '');
      try { el.setSelectionRange(at, at); } catch (e) { /* not a text input */ }
      var problem = rfcProblem(el.value);
      var warning = problem ? '' : rfcWarning(el.value);
      setFieldError('rfc', problem || warning, !problem && !!warning);
      refreshRegimes();
    });
    input('name').addEventListener('blur', function () { input('name').value = input('name').value.toUpperCase(); });
    input('tax_regime').addEventListener('change', refreshUses);
    form.addEventListener('input', saveDraft);
    form.addEventListener('change', saveDraft);

    refreshRegimes();
    restore();
  }

  // --- An offline ticket whose sale has not arrived: the buyer's data kept until it does -----------------
  function offlinePendingPage() {
    var button = $('leave-data');
    // The first buyer to leave data holds the ticket; this browser keeps the token that lets it correct them.
    var HOLDER_KEY = 'af-offline-claim:' + link.k + ':' + link.s;
    function holderToken() { try { return localStorage.getItem(HOLDER_KEY); } catch (e) { return null; } }
    form.addEventListener('submit', function (e) {
      e.preventDefault();
      if (busy) return;
      clearErrors();
      saveDraft();
      lock(button, true);
      var request = { v: link.v, k: link.k, w: link.w, a: link.a, s: link.s, m: link.m, customer: customer() };
      var token = holderToken();
      if (token) request.claim_token = token;
      api('POST', '/v1/public/qrs/offline-claim', request).then(function (res) {
        lock(button, false);
        var error = res.body.error || {};
        if (res.status === 202) {
          try { localStorage.setItem(HOLDER_KEY, res.body.claim_token); } catch (e) { /* this browser cannot correct them later */ }
          $('claim-note').textContent = 'Te enviaremos la factura a ' + res.body.email + ' cuando la tienda envíe la compra.';
          show('claim-step');
          return;
        }
        // The sale arrived meanwhile: its own page takes over (review, confirm).
        if (res.status === 409 && error.code === 'offline_sale_arrived' && error.qr_content) { location.assign(relative(error.qr_content)); return; }
        showApiError(error);
      });
    });
    $('claim-edit').addEventListener('click', function () { show('fill-step'); input('rfc').focus(); });
  }

  // --- Fill from the tax-status certificate (CSF): the service reads its QR and asks SAT ---------------
  function readCsf(fileInput) {
    var file = fileInput.files && fileInput.files[0];
    if (!file) return;
    var note = $('csf-note');
    note.textContent = 'Leyendo tu constancia…';
    var data = new FormData();
    data.append('document', file);
    // The link goes in the query: the service checks it before it reads the file.
    api('POST', '/v1/public/qrs/csf?' + linkQuery(), data).then(function (res) {
      fileInput.value = '';
      if (res.status !== 200) {
        var code = res.body.error && res.body.error.code;
        note.textContent = code === 'csf_unreadable' ? 'No encontramos el código QR de una Constancia de Situación Fiscal en ese archivo. Prueba con el PDF que descargaste del SAT o con una foto más cercana y nítida del código QR.'
          : code === 'csf_not_found' ? 'El SAT no encontró esa constancia. Llena tus datos a mano.'
          : code === 'csf_unavailable' ? 'El servicio del SAT no responde ahora. Llena tus datos a mano o inténtalo en un momento.'
          : code === 'payload_too_large' ? 'El archivo es demasiado grande (máximo 8 MB).'
          : humanError(res.body.error || {});
        return;
      }
      var c = res.body;
      input('rfc').value = c.rfc;
      input('name').value = c.name;
      input('postal_code').value = c.postal_code;
      csfRegimes = { rfc: c.rfc, codes: c.tax_regimes.map(function (r) { return r.code; }) };
      refreshRegimes();
      clearErrors();
      saveDraft();
      note.textContent = 'Listo: llenamos tus datos con los de tu constancia. Revisa el régimen y el uso del CFDI.';
      input(c.tax_regimes.length === 1 ? 'cfdi_use' : 'tax_regime').focus();
    });
  }

  if (page.confirmation && page.confirmation.status === 'STAMPING') follow(page.confirmation);
  else if (page.confirmation && page.confirmation.status === 'REFUSED') showApiError(page.confirmation.error || {});
})();
