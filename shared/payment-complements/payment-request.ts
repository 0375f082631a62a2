/**
 * The payment a payment complement records (the `payment` of POST /v1/qrs/invoices/payment-complements).
 * Declared here because shared/ does not import the API;
 * api/contract/payment-complements/payment-complement-schema.ts proves at compile time that its schema
 * validates exactly this type.
 */
export interface PaymentRequest {
  /** FechaPago, local wall-clock time without offset, or a date alone. */
  date: string;
  sat_payment_form: string;
  currency: string;
  exchange_rate?: number;
  amount: number;
  operation_number?: string;
}
