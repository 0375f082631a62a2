/**
 * Converts SAT's catalog CSVs (../shared/sat/catalogs, see its README) into the files the service ships
 * and loads at start (shared/sat/catalogs.ts): data/sat/catalogs.json (every catalog but one, and
 * c_TasaOCuota) and data/sat/c_ClaveProdServ.tsv (52,000 rows, sorted by key, searched in place).
 * Run once when SAT publishes new catalogs: `npm run build:catalogs [-- <source dir> [<target dir>]]`.
 * Facts only: each catalog keeps its key, description, validity dates and the columns validation uses.
 */
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { CATALOG_FILE_VERSION, PRODUCT_CATALOG, type CatalogFile, type CatalogRow, type CatalogTable } from '../shared/sat/catalog-file.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const sourceDir = resolve(process.argv[2] ?? join(root, '..', 'shared', 'sat', 'catalogs'));
const targetDir = resolve(process.argv[3] ?? join(root, 'data', 'sat'));

/** Which CSV columns each catalog keeps besides key/description/validity (renamed to our names). */
const KEEP: Record<string, Record<string, string>> = {
  c_FormaPago: { bancarizado: 'banked' },
  c_MetodoPago: {},
  c_Moneda: { decimals: 'decimals', variation_percent: 'variation_percent' },
  c_TipoDeComprobante: { max_amount: 'max_amount' },
  c_Exportacion: {},
  c_ObjetoImp: {},
  c_Impuesto: { retencion: 'withholding', traslado: 'transfer' },
  c_TipoFactor: {},
  c_ClaveUnidad: {},
  c_Periodicidad: {},
  c_Meses: {},
  c_TipoRelacion: {},
  c_RegimenFiscal: { persona_fisica: 'natural_person', persona_moral: 'legal_person' },
  c_UsoCFDI: { persona_fisica: 'natural_person', persona_moral: 'legal_person', regimen_fiscal_receptor: 'receiver_regimes' },
  c_Pais: {},
  c_Estado: { country: 'country' },
};

/** RFC 4180 CSV (quoted fields, doubled quotes, CRLF or LF). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += ch;
  }
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

function readCsv(name: string): Record<string, string>[] {
  const plain = join(sourceDir, `${name}.csv`);
  let text: string;
  try {
    text = readFileSync(plain, 'utf8');
  } catch {
    text = gunzipSync(readFileSync(`${plain}.gz`)).toString('utf8');
  }
  const [header, ...rows] = parseCsv(text.replace(/^\uFEFF/, ''));
  if (!header) throw new Error(`${name}: empty file`);
  return rows.filter((r) => r.length > 1).map((r) => Object.fromEntries(header.map((h, i) => [h, r[i] ?? ''])));
}

/** Tabs and line breaks would break the .tsv layout; SAT's descriptions do not need them. */
const oneLine = (s: string): string => s.replace(/\s+/g, ' ').trim();

function rows(name: string, keep: Record<string, string>): CatalogRow[] {
  return readCsv(name).map((r) => {
    // c_ClaveUnidad's "description" is a long note; its short name is what SAT prints.
    const description = name === 'c_ClaveUnidad' ? (r.name ?? '') : (r.description ?? '');
    const key = r.key;
    if (!key) throw new Error(`${name}: row without key`);
    return [key, oneLine(description), r.vigencia_desde || null, r.vigencia_hasta || null, ...Object.keys(keep).map((c) => oneLine(r[c] ?? ''))];
  });
}

function table(name: string): CatalogTable {
  const keep = KEEP[name] ?? {};
  return { attributes: Object.values(keep), rows: rows(name, keep) };
}

/** key, description, from, to, then PRODUCT_CATALOG.attributes; sorted by key for SortedLineIndex. */
function productLines(): string {
  const keep = { incluir_iva_trasladado: 'include_iva', incluir_ieps_trasladado: 'include_ieps' };
  if (Object.values(keep).join() !== PRODUCT_CATALOG.attributes.join()) throw new Error('PRODUCT_CATALOG.attributes changed');
  const sorted = rows(PRODUCT_CATALOG.name, keep).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return `${sorted.map((r) => r.map((v) => v ?? '').join('\t')).join('\n')}\n`;
}

/** c_TasaOCuota has no key: each row is a fixed value or a range for one tax, factor and direction. */
function rates(): CatalogFile['rates'] {
  const taxKey: Record<string, string> = { ISR: '001', IVA: '002', IEPS: '003' };
  return readCsv('c_TasaOCuota').map((r) => {
    // "IVA Crédito aplicado del 50%" is the 8 % border-region IVA: tax 002.
    const name = (r.impuesto ?? '').split(' ')[0] ?? '';
    const tax = taxKey[name];
    if (!tax) throw new Error(`c_TasaOCuota: unknown tax ${r.impuesto}`);
    return {
      kind: r.rango_o_fijo === 'Rango' ? 'range' : 'fixed',
      min: r.minimo || null,
      max: r.maximo_o_valor ?? '',
      tax,
      factor: r.factor ?? '',
      transfer: r.traslado === '1',
      withholding: r.retencion === '1',
      validFrom: r.vigencia_desde || null,
      validTo: r.vigencia_hasta || null,
    };
  });
}

const file: CatalogFile = {
  version: CATALOG_FILE_VERSION,
  source: 'SAT catCFDI_V_4 via ../shared/sat/catalogs (see its README for provenance)',
  tables: Object.fromEntries(Object.keys(KEEP).map((name) => [name, table(name)])),
  rates: rates(),
};
mkdirSync(targetDir, { recursive: true });
writeFileSync(join(targetDir, 'catalogs.json'), `${JSON.stringify(file)}\n`);
const products = productLines();
writeFileSync(join(targetDir, `${PRODUCT_CATALOG.name}.tsv`), products);
const counts = Object.entries(file.tables)
  .map(([n, t]) => `${n}=${t.rows.length}`)
  .join(' ');
console.log(`wrote ${targetDir}: ${counts} c_TasaOCuota=${file.rates.length} ${PRODUCT_CATALOG.name}=${products.split('\n').length - 1}`);
