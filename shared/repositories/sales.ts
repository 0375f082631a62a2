import { runPrepared, type Db, type PreparedStatement } from '../platform/db.js';
import type { Address, InvoiceRules } from '../merchants/merchant.js';
import { conceptsAndTaxesJson, idsMonths, instantsOfIds, type ConceptsAndTaxesJson, type QrTransactionRecord, type QrTransactionRow } from './qr-transactions.js';
import { firstInPartitions, onKeyInstant, partitionOf, perPartition, salePartitionsOf, type SalePartition } from './sale-partition.js';

/** A transaction with what invoicing it needs: its merchant (point of sale) and issuer as they are now. */
export interface Sale {
  record: QrTransactionRecord;
  merchant: {
    id: string;
    name: string;
    status: string;
    address: Address | null;
    appLogoUrl: string | null;
    invoiceLogoUrl: string | null;
    contactEmail: string | null;
    contactPhone: string | null;
    logoAnimation: string;
    invoiceRules: InvoiceRules;
  };
  issuer: { id: string; rfc: string; name: string; taxRegime: string; zip: string; status: string };
}

interface SaleRow extends QrTransactionRow {
  m_name: string;
  m_status: string;
  m_address: Address | null;
  m_app_logo_url: string | null;
  m_invoice_logo_url: string | null;
  m_contact_email: string | null;
  m_contact_phone: string | null;
  m_logo_animation: string;
  m_allow_generic_rfc: boolean;
  m_allowed_cfdi_uses: string[] | null;
  m_resico_withholding: boolean;
  i_id: string;
  i_rfc: string;
  i_name: string;
  i_regime: string;
  i_zip: string;
  i_status: string;
}

const saleSelect = (sale: string, months: Parameters<typeof conceptsAndTaxesJson>[0]) => `SELECT t.*,
      m.name AS m_name, m.status AS m_status, m.address AS m_address, m.app_logo_url AS m_app_logo_url,
      m.invoice_logo_url AS m_invoice_logo_url, m.contact_email AS m_contact_email, m.contact_phone_number AS m_contact_phone,
      m.logo_animation AS m_logo_animation, m.allow_generic_rfc AS m_allow_generic_rfc, m.allowed_cfdi_uses AS m_allowed_cfdi_uses,
      m.resico_withholding AS m_resico_withholding,
      i.id AS i_id, i.rfc AS i_rfc, i.business_name AS i_name, i.tax_regime_code AS i_regime, i.zip AS i_zip, i.status AS i_status,
      ${conceptsAndTaxesJson(months)}
    FROM ${sale}
    JOIN merchants m ON m.id = t.merchant_id
    JOIN issuers i ON i.id = m.issuer_id`;

// The buyer's every page and confirmation, and each stamp, read a sale: one prepared statement each way and
// partition, reading the partition its key names, then the legacy one (shared/repositories/sale-partition.ts).
const onePartition = (column: 'id' | 'token') => (partition: SalePartition) =>
  `${saleSelect(`${partitionOf('qr_transactions', partition)} t`, { partition })}
    WHERE t.${column} = $1${onKeyInstant(column, partition)}`;
const findSaleByIdIn = perPartition('find_sale_by_id_v4', onePartition('id'));
export const findSaleByTokenIn = perPartition('find_sale_by_token_v4', onePartition('token'));

// A stamp batch's sales (issue #40): one statement for every ticket of every invoice it seals, in their ids'
// months (and the legacy partition, as saleByKey). The instants are a parameter ($2, read from the ids here),
// so the planner prunes the sales and their lines to those months (issue #41).
const batchMonths = (column: string) => idsMonths(column, '$2');
export const FIND_SALES_BY_ID: PreparedStatement = {
  name: 'find_sales_by_id_v3',
  text: `${saleSelect('qr_transactions t', batchMonths)}
    WHERE t.id = ANY($1::text[]) AND ${batchMonths('t.created_at')}`,
};

/** By internal id (workers) or by the QR's token (the buyer's routes). */
export async function findSale(db: Db, by: { id: string } | { token: string }): Promise<Sale | undefined> {
  const row =
    'id' in by
      ? await firstInPartitions<SaleRow & ConceptsAndTaxesJson>(db, salePartitionsOf('id', by.id), findSaleByIdIn, [by.id])
      : await firstInPartitions<SaleRow & ConceptsAndTaxesJson>(db, salePartitionsOf('token', by.token), findSaleByTokenIn, [by.token]);
  return row && saleOf(row);
}

/** Several sales by internal id, in one round trip, by id (an id without a row is missing). */
export async function findSales(db: Db, ids: readonly string[]): Promise<Map<string, Sale>> {
  if (ids.length === 0) return new Map();
  const unique = [...new Set(ids)];
  const rows = await runPrepared<SaleRow & ConceptsAndTaxesJson>(db, FIND_SALES_BY_ID, [unique, instantsOfIds(unique)]);
  return new Map(rows.map((row) => [row.id, saleOf(row)]));
}

function saleOf(row: SaleRow & ConceptsAndTaxesJson): Sale {
  const {
    m_name,
    m_status,
    m_address,
    m_app_logo_url,
    m_invoice_logo_url,
    m_contact_email,
    m_contact_phone,
    m_logo_animation,
    m_allow_generic_rfc,
    m_allowed_cfdi_uses,
    m_resico_withholding,
    i_id,
    i_rfc,
    i_name,
    i_regime,
    i_zip,
    i_status,
    concepts_json: concepts,
    taxes_json: taxes,
    ...transaction
  } = row;
  return {
    record: { transaction, concepts, taxes, storeName: m_name, issuerRfc: i_rfc, issuerName: i_name },
    merchant: {
      id: transaction.merchant_id,
      name: m_name,
      status: m_status,
      address: m_address,
      appLogoUrl: m_app_logo_url,
      invoiceLogoUrl: m_invoice_logo_url,
      contactEmail: m_contact_email,
      contactPhone: m_contact_phone,
      logoAnimation: m_logo_animation,
      invoiceRules: { allowGenericRfc: m_allow_generic_rfc, allowedCfdiUses: m_allowed_cfdi_uses, resicoWithholding: m_resico_withholding },
    },
    issuer: { id: i_id, rfc: i_rfc, name: i_name, taxRegime: i_regime, zip: i_zip, status: i_status },
  };
}

/** Where the sale was made: the store's fiscal zip, or the issuer's when the store has no address. */
export function expeditionPlace(sale: Sale): string {
  return sale.merchant.address?.zipCode ?? sale.issuer.zip;
}
