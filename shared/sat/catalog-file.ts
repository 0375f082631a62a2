/** Shapes of data/sat/catalogs.json and c_ClaveProdServ.tsv, written by scripts/build-catalogs.ts, read by catalogs.ts. */
export const CATALOG_FILE_VERSION = 2;

/** The one large catalog, kept out of the JSON as a sorted .tsv: key, description, from, to, then these. */
export const PRODUCT_CATALOG = { name: 'c_ClaveProdServ', attributes: ['include_iva', 'include_ieps'] } as const;

/** One row: key, description, valid from (YYYY-MM-DD or null), valid to (inclusive, null = open), then `attributes`. */
export type CatalogRow = [string, string, string | null, string | null, ...string[]];

export interface CatalogTable {
  attributes: string[];
  rows: CatalogRow[];
}

/** One c_TasaOCuota row: a fixed value or an inclusive range for a tax, a factor and a direction. */
export interface RateRow {
  kind: 'fixed' | 'range';
  min: string | null;
  max: string;
  /** c_Impuesto key */
  tax: string;
  factor: string;
  transfer: boolean;
  withholding: boolean;
  validFrom: string | null;
  validTo: string | null;
}

export interface CatalogFile {
  version: number;
  source: string;
  tables: Record<string, CatalogTable>;
  rates: RateRow[];
}
