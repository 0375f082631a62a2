/**
 * The text rules of SAT's CFDI 4.0 schema (every string attribute with a pattern or length facets, by its
 * element path), read from the XSD the service ships (data/sat/xsd, see copy-sat-schemas.ts) into
 * data/sat/cfdi-text-rules.json, which the request schemas check values against at the door
 * (shared/sat/cfdi-text-rules.ts). Run after `npm run copy:schemas`: `npm run build:text-rules`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseXml } from '../shared/domain/cfdi/parse-xml.js';
import { attribute, type XmlElement } from '../shared/domain/cfdi/xml-element.js';
import type { CfdiTextRule } from '../shared/sat/cfdi-text-rules.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const XSD = join(root, 'data/sat/xsd/www.sat.gob.mx/sitio_internet/cfd/4/cfdv40.xsd');
export const TEXT_RULES_FILE = join(root, 'data/sat/cfdi-text-rules.json');

function facet(restriction: XmlElement, name: string): string | undefined {
  const node = restriction.children.find((c) => c.name === `xs:${name}`);
  return node ? attribute(node, 'value') : undefined;
}

/** Every xs:attribute with an inline xs:string restriction, keyed `Element/Child@Attribute`. */
export function buildCfdiTextRules(xsd: string = readFileSync(XSD, 'utf8')): Record<string, CfdiTextRule> {
  const rules: Record<string, CfdiTextRule> = {};
  const walk = (node: XmlElement, path: string[]): void => {
    const name = node.name === 'xs:element' ? attribute(node, 'name') : undefined;
    const here = name ? [...path, name] : path;
    if (node.name === 'xs:attribute') {
      const restriction = node.children.find((c) => c.name === 'xs:simpleType')?.children.find((c) => c.name === 'xs:restriction');
      if (restriction && attribute(restriction, 'base') === 'xs:string') {
        const pattern = facet(restriction, 'pattern');
        const maxLength = facet(restriction, 'maxLength');
        if (pattern !== undefined || maxLength !== undefined) {
          rules[`${here.join('/')}@${attribute(node, 'name') ?? ''}`] = {
            minLength: Number(facet(restriction, 'minLength') ?? 0),
            maxLength: maxLength === undefined ? undefined : Number(maxLength),
            pattern,
            collapse: facet(restriction, 'whiteSpace') === 'collapse',
          };
        }
      }
      return;
    }
    for (const c of node.children) walk(c, here);
  };
  walk(parseXml(xsd), []);
  return rules;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rules = buildCfdiTextRules();
  writeFileSync(TEXT_RULES_FILE, `${JSON.stringify(rules, null, 1)}\n`);
  console.log(`${Object.keys(rules).length} text rules written to ${TEXT_RULES_FILE}`);
}
