/** Why a buyer's claim on an offline ticket did not become an invoice (issue #33); the buyer is told by e-mail. */
export type ClaimRefusal = 'window_passed' | 'customer_invalid' | 'sale_already_confirmed' | 'sale_closed';

/** Each refusal as the buyer reads it. */
export const CLAIM_REFUSAL_TEXT: Record<ClaimRefusal, string> = {
  window_passed: 'La tienda no nos envió esta compra dentro del plazo para facturarla.',
  customer_invalid: 'Cuando llegó la compra, los datos fiscales que dejaste ya no cumplían las reglas de facturación de la tienda.',
  sale_already_confirmed: 'La compra ya se había facturado desde su propio código antes de que pudiéramos usar tus datos.',
  sale_closed: 'La tienda canceló la compra o su plazo para facturar terminó.',
};
