import { DOMParser, type Element as DomElement } from '@xmldom/xmldom';
import type { XmlElement } from './xml-element.js';

export class XmlParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'XmlParseError';
  }
}

function toElement(node: DomElement): XmlElement {
  const attributes: [string, string][] = [];
  for (let i = 0; i < node.attributes.length; i++) {
    const attr = node.attributes.item(i);
    if (attr) attributes.push([attr.name, attr.value]);
  }
  const kids: XmlElement[] = [];
  for (let n = node.firstChild; n; n = n.nextSibling) {
    if (n.nodeType === n.ELEMENT_NODE) kids.push(toElement(n as DomElement));
  }
  return { name: node.tagName, attributes, children: kids };
}

/** Parses an XML document into our element form; text content is dropped (CFDI carries none). */
export function parseXml(xml: string): XmlElement {
  const problems: string[] = [];
  // Files PACs return often start with a UTF-8 byte order mark, which a decoded string keeps.
  const doc = new DOMParser({
    onError: (level, message) => {
      if (level !== 'warning') problems.push(message);
    },
  }).parseFromString(xml.replace(/^\uFEFF/, ''), 'text/xml');
  const root = doc.documentElement;
  if (problems.length > 0 || !root) throw new XmlParseError(`not well-formed XML: ${problems[0] ?? 'no root element'}`);
  return toElement(root);
}
