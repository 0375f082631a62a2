import { readFileSync } from 'node:fs';
import { xmlCharProblem } from '../domain/cfdi/xml-chars.js';

/** The facets SAT's CFDI 4.0 schema sets on a string attribute (scripts/build-cfdi-text-rules.ts). */
export interface CfdiTextRule {
  minLength: number;
  maxLength?: number;
  /** XSD regular expression, implicitly anchored. */
  pattern?: string;
  /** whiteSpace="collapse": tabs and line breaks become spaces, runs of spaces one, ends trimmed, before the checks. */
  collapse: boolean;
}

/** The CFDI attributes values from the POS, the merchant or the buyer end up in. */
export const CFDI_TEXT = {
  conceptDescription: 'Comprobante/Conceptos/Concepto@Descripcion',
  conceptSku: 'Comprobante/Conceptos/Concepto@NoIdentificacion',
  /** A sale's id is its ticket's NoIdentificacion in the global invoice (shared/global-invoice/plan-global-invoice.ts). */
  saleId: 'Comprobante/Conceptos/Concepto@NoIdentificacion',
  conceptUnit: 'Comprobante/Conceptos/Concepto@Unidad',
  receptorName: 'Comprobante/Receptor@Nombre',
  issuerName: 'Comprobante/Emisor@Nombre',
  series: 'Comprobante@Serie',
} as const;

export type CfdiTextField = (typeof CFDI_TEXT)[keyof typeof CFDI_TEXT];

let rules: Record<string, CfdiTextRule> | undefined;
const compiled = new Map<string, RegExp>();

function rule(path: string): CfdiTextRule {
  rules ??= JSON.parse(readFileSync(new URL('../../data/sat/cfdi-text-rules.json', import.meta.url), 'utf8')) as Record<string, CfdiTextRule>;
  const found = rules[path];
  if (!found) throw new Error(`no CFDI text rule ${path} in data/sat/cfdi-text-rules.json`);
  return found;
}

/** XSD whiteSpace="collapse". */
export function collapseWhitespace(value: string): string {
  return value.replace(/[\t\n\r ]+/g, ' ').trim();
}

/** Why SAT's schema would refuse `value` in the attribute at `path`, or undefined when it accepts it. */
export function cfdiTextProblem(path: CfdiTextField, value: string): string | undefined {
  // Before SAT's facets: a character XML cannot hold would make the whole stamped document unreadable.
  const unwritable = xmlCharProblem(value);
  if (unwritable !== undefined) return unwritable;
  const r = rule(path);
  const text = r.collapse ? collapseWhitespace(value) : value;
  const length = [...text].length;
  if (length < r.minLength)
    return r.collapse && value.length > 0 ? 'must have something other than spaces' : `must have at least ${r.minLength} character${r.minLength === 1 ? '' : 's'}`;
  if (r.maxLength !== undefined && length > r.maxLength) return `must have at most ${r.maxLength} characters`;
  if (r.pattern !== undefined) {
    let re = compiled.get(r.pattern);
    if (!re) {
      re = new RegExp(`^(?:${r.pattern})$`, 'u');
      compiled.set(r.pattern, re);
    }
    if (!re.test(text)) return r.pattern.startsWith('[^|]') ? 'must not contain "|" (SAT\'s separator in the cadena original)' : `must match SAT's pattern ${r.pattern}`;
  }
  return undefined;
}
