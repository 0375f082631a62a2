import type { XmlElement } from './xml-element.js';
import { describeCodePoint, firstNonXmlChar } from './xml-chars.js';

/** A value holds a character XML 1.0 cannot (a C0 control, U+FFFE, a lone surrogate): no document is written. */
export class UnwritableXmlError extends Error {
  constructor(
    message: string,
    /** `Concepto@NoIdentificacion`: the element and attribute that hold it. */
    readonly field: string,
    /** `U+001D (INFORMATION SEPARATOR THREE / GS)`. */
    readonly character: string,
    /** The value, as stored: what names the sale or the record to correct. */
    readonly value: string,
  ) {
    super(message);
    this.name = 'UnwritableXmlError';
  }
}

// Tabs and line breaks are escaped so a parser hands back the same value (attribute-value
// normalization would otherwise turn them into spaces before the seal is checked).
const ATTRIBUTE_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', '\t': '&#9;', '\n': '&#10;', '\r': '&#13;' };

export function escapeAttribute(value: string): string {
  return value.replace(/[&<>"\t\n\r]/g, (c) => ATTRIBUTE_ESCAPES[c] ?? c);
}

function write(node: XmlElement, out: string[]): void {
  out.push('<', node.name);
  for (const [key, value] of node.attributes) {
    // The door refuses these; this is the last line, so a stamped CFDI is always well-formed.
    const bad = firstNonXmlChar(value);
    if (bad) {
      const field = `${node.name}@${key}`;
      const character = describeCodePoint(bad.codePoint);
      throw new UnwritableXmlError(`${field} holds ${character} at index ${bad.index}, which XML 1.0 cannot hold`, field, character, value);
    }
    out.push(' ', key, '="', escapeAttribute(value), '"');
  }
  if (node.children.length === 0) {
    out.push('/>');
    return;
  }
  out.push('>');
  for (const c of node.children) write(c, out);
  out.push('</', node.name, '>');
}

/**
 * UTF-8 XML document, no insignificant whitespace (what is sealed is exactly what is sent). Throws
 * UnwritableXmlError rather than write a document a strict XML parser would reject.
 */
export function serializeXml(root: XmlElement): string {
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>\n'];
  write(root, out);
  return out.join('');
}
