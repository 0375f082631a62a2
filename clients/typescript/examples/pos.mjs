// A point of sale's use of the client: create the sale's QR, print what goes on the ticket, and show that a
// retry with the same idempotency key (after a lost answer) is a replay, not a second QR.
// Run: AUTOFACTURA_URL=http://localhost:3000 AUTOFACTURA_API_KEY=… AUTOFACTURA_STORE_UID=dev-store-1 node pos.mjs
import { randomUUID } from 'node:crypto';
import { ApiError, AutofacturaClient } from '@autofactura/client';

const client = new AutofacturaClient({ baseUrl: process.env.AUTOFACTURA_URL ?? 'http://localhost:3000', apiKey: process.env.AUTOFACTURA_API_KEY });
const sale = {
  store_uid: process.env.AUTOFACTURA_STORE_UID ?? 'dev-store-1',
  sale_id: `A-${Date.now()}`,
  operation: 'INVOICE',
  amount: 116,
  subtotal: 100,
  currency: 'MXN',
  sat_payment_method: 'PUE',
  sat_payment_form: '04',
  type_of_receipt: 'I',
  export_code: '01',
  expires_at: new Date(Date.now() + 5 * 86_400_000).toISOString(),
  operation_data: [
    {
      description: 'Agua 1 L',
      quantity: 1,
      unit_price: 100,
      amount: 100,
      sat_unit_key: 'H87',
      sat_product_service_key: '50202301',
      sat_tax_object_key: '02',
      taxes: [{ type: 'Traslado', tax: '002', factor: 'Tasa', rate: '0.160000', taxable_base: 100, amount: 16 }],
    },
  ],
};

try {
  const key = randomUUID(); // keep it with the sale until the answer is stored: a retry sends the same one
  const qr = await client.createQr(sale, key);
  const retry = await client.createQr(sale, key);
  console.log(JSON.stringify({ qr_id: qr.qr_id, status: qr.status, qr_content: qr.qr_content, replayed: qr.replayed, retry: { qr_id: retry.qr_id, replayed: retry.replayed } }));
} catch (err) {
  if (err instanceof ApiError) console.error(err.status, err.code, err.message, err.details, err.requestId);
  else console.error(err);
  process.exitCode = 1;
}
