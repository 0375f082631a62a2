import { randomUUID } from 'node:crypto';
import { sampleSale } from '../test/fixtures/sample-sale.js';

const MARK = 'SALE-ID-MARK';

/**
 * A sale's JSON body per call, each with a sale_id of its own: a sale holds one live QR (issue #39), so
 * posting one body again would measure 409s. The JSON is made once; a call only splices the id in.
 */
export function saleBodies(storeUid: string, expiresAt = new Date(Date.now() + 86_400_000)): () => string {
  const [head, tail] = JSON.stringify(sampleSale(storeUid, expiresAt, MARK)).split(MARK) as [string, string];
  const run = randomUUID().slice(0, 8);
  let n = 0;
  return () => `${head}sale-${run}-${++n}${tail}`;
}
