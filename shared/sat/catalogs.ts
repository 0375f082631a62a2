/**
 * SAT catalogs for CFDI 4.0, loaded once from data/sat/ (built by scripts/build-catalogs.ts).
 * Validity dates count: a key outside its vigencia is refused.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Decimal } from 'decimal.js';
import { CATALOG_FILE_VERSION, PRODUCT_CATALOG, type CatalogFile, type RateRow } from './catalog-file.js';
import { SortedLineIndex } from './sorted-line-index.js';

export type CatalogName =
  | 'c_FormaPago'
  | 'c_MetodoPago'
  | 'c_Moneda'
  | 'c_TipoDeComprobante'
  | 'c_Exportacion'
  | 'c_ObjetoImp'
  | 'c_Impuesto'
  | 'c_TipoFactor'
  | 'c_ClaveUnidad'
  | 'c_ClaveProdServ'
  | 'c_Periodicidad'
  | 'c_Meses'
  | 'c_TipoRelacion'
  | 'c_RegimenFiscal'
  | 'c_UsoCFDI'
  | 'c_Pais'
  | 'c_Estado';

export interface CatalogEntry {
  key: string;
  description: string;
  validFrom: string | null;
  validTo: string | null;
  attributes: Readonly<Record<string, string>>;
}

export type CatalogCheck = { ok: true; entry: CatalogEntry } | { ok: false; reason: 'unknown' | 'not_in_force'; entry?: CatalogEntry };

export type TaxDirection = 'Traslado' | 'Retencion';

export interface RegimeInfo {
  code: string;
  description: string;
  naturalPerson: boolean;
  legalPerson: boolean;
}

export interface CfdiUseInfo {
  code: string;
  description: string;
  naturalPerson: boolean;
  legalPerson: boolean;
  receiverRegimes: readonly string[];
}

/** `onDate` is a calendar date YYYY-MM-DD (the document's local issue date); bounds are inclusive. */
function inForce(from: string | null, to: string | null, onDate: string): boolean {
  return (from === null || from <= onDate) && (to === null || onDate <= to);
}

const PRODUCT_ENTRIES_KEPT = 4096;

export class SatCatalogs {
  readonly #tables = new Map<CatalogName, Map<string, CatalogEntry>>();
  readonly #rates: readonly RateRow[];
  readonly #products: SortedLineIndex;
  /** Product entries already decoded: a service's sales repeat a few hundred keys, each looked up on every view. */
  readonly #productEntries = new Map<string, CatalogEntry>();

  constructor(file: CatalogFile, products: SortedLineIndex) {
    if (file.version !== CATALOG_FILE_VERSION) {
      throw new Error(`catalog file version ${file.version}, expected ${CATALOG_FILE_VERSION}; run npm run build:catalogs`);
    }
    for (const [name, table] of Object.entries(file.tables)) {
      const entries = new Map<string, CatalogEntry>();
      for (const [key, description, validFrom, validTo, ...values] of table.rows) {
        const attributes: Record<string, string> = {};
        table.attributes.forEach((a, i) => {
          attributes[a] = values[i] ?? '';
        });
        entries.set(key, { key, description, validFrom, validTo, attributes });
      }
      this.#tables.set(name as CatalogName, entries);
    }
    this.#rates = file.rates;
    this.#products = products;
  }

  entry(catalog: CatalogName, key: string): CatalogEntry | undefined {
    if (catalog === PRODUCT_CATALOG.name) return this.#product(key);
    return this.#tables.get(catalog)?.get(key);
  }

  #product(key: string): CatalogEntry | undefined {
    const known = this.#productEntries.get(key);
    if (known) return known;
    const entry = this.#decodeProduct(key);
    if (entry) {
      // Bounded: the oldest decoded key goes first (a Map iterates in insertion order).
      if (this.#productEntries.size >= PRODUCT_ENTRIES_KEPT) this.#productEntries.delete(this.#productEntries.keys().next().value!);
      this.#productEntries.set(key, entry);
    }
    return entry;
  }

  #decodeProduct(key: string): CatalogEntry | undefined {
    const fields = this.#products.find(key);
    if (!fields) return undefined;
    const [, description = '', validFrom = '', validTo = '', ...values] = fields;
    const attributes: Record<string, string> = {};
    PRODUCT_CATALOG.attributes.forEach((a, i) => {
      attributes[a] = values[i] ?? '';
    });
    return { key, description, validFrom: validFrom || null, validTo: validTo || null, attributes };
  }

  description(catalog: CatalogName, key: string): string | undefined {
    return this.entry(catalog, key)?.description;
  }

  check(catalog: CatalogName, key: string, onDate: string): CatalogCheck {
    const entry = this.entry(catalog, key);
    if (!entry) return { ok: false, reason: 'unknown' };
    if (!inForce(entry.validFrom, entry.validTo, onDate)) return { ok: false, reason: 'not_in_force', entry };
    return { ok: true, entry };
  }

  /** Entries in force on `onDate` (for pick lists); not for c_ClaveProdServ, which is searched by key. */
  keys(catalog: Exclude<CatalogName, typeof PRODUCT_CATALOG.name>, onDate: string): CatalogEntry[] {
    return [...(this.#tables.get(catalog)?.values() ?? [])].filter((e) => inForce(e.validFrom, e.validTo, onDate));
  }

  /** Decimal places SAT allows for amounts in this currency (c_Moneda), e.g. 2 for MXN. */
  currencyDecimals(code: string): number | undefined {
    const decimals = this.entry('c_Moneda', code)?.attributes.decimals;
    return decimals === undefined || decimals === '' ? undefined : Number(decimals);
  }

  /** Whether c_Impuesto allows this tax as a transfer or a withholding. */
  taxAllows(tax: string, direction: TaxDirection): boolean {
    const attributes = this.entry('c_Impuesto', tax)?.attributes;
    return attributes?.[direction === 'Traslado' ? 'transfer' : 'withholding'] === '1';
  }

  /** Whether any c_TasaOCuota row (in force on `onDate`) allows this tax, factor and direction at all. */
  factorAllowed(tax: string, factor: string, direction: TaxDirection, onDate: string): boolean {
    return this.#matchingRates(tax, factor, direction, onDate).length > 0;
  }

  /** c_TasaOCuota: a fixed value equal to `rate` or a range containing it, for this tax, factor and direction. */
  rateAllowed(tax: string, factor: string, direction: TaxDirection, rate: string, onDate: string): boolean {
    const value = new Decimal(rate);
    return this.#matchingRates(tax, factor, direction, onDate).some((r) =>
      r.kind === 'fixed' ? value.equals(r.max) : value.greaterThanOrEqualTo(r.min ?? 0) && value.lessThanOrEqualTo(r.max),
    );
  }

  #matchingRates(tax: string, factor: string, direction: TaxDirection, onDate: string): RateRow[] {
    return this.#rates.filter((r) => r.tax === tax && r.factor === factor && (direction === 'Traslado' ? r.transfer : r.withholding) && inForce(r.validFrom, r.validTo, onDate));
  }

  regime(code: string): RegimeInfo | undefined {
    const e = this.entry('c_RegimenFiscal', code);
    return e && { code, description: e.description, naturalPerson: e.attributes.natural_person === '1', legalPerson: e.attributes.legal_person === '1' };
  }

  cfdiUse(code: string): CfdiUseInfo | undefined {
    const e = this.entry('c_UsoCFDI', code);
    return (
      e && {
        code,
        description: e.description,
        naturalPerson: e.attributes.natural_person === '1',
        legalPerson: e.attributes.legal_person === '1',
        receiverRegimes: (e.attributes.receiver_regimes ?? '').split(';').filter((s) => s !== ''),
      }
    );
  }

  /** Largest total c_TipoDeComprobante allows for a receipt type (T: 0). */
  receiptMaxAmount(type: string): string | undefined {
    return this.entry('c_TipoDeComprobante', type)?.attributes.max_amount;
  }
}

const DATA_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'data', 'sat');

export function loadSatCatalogs(dir: string = DATA_DIR): SatCatalogs {
  const file = JSON.parse(readFileSync(join(dir, 'catalogs.json'), 'utf8')) as CatalogFile;
  return new SatCatalogs(file, new SortedLineIndex(readFileSync(join(dir, `${PRODUCT_CATALOG.name}.tsv`))));
}

let shared: SatCatalogs | undefined;

/** The process-wide catalogs, loaded on first use. */
export function satCatalogs(): SatCatalogs {
  shared ??= loadSatCatalogs();
  return shared;
}
