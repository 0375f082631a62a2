import { DOMParser, type Document } from '@xmldom/xmldom';

/**
 * The text of the first element with each of `localNames` in `xml`, whatever its prefix (SOAP services pick
 * their own), with entities and CDATA decoded; an empty or `i:nil` element reads ''. Names absent from the
 * document are absent from the map; undefined when `xml` is not well-formed.
 */
export function textsByLocalName(xml: string, localNames: readonly string[]): Map<string, string> | undefined {
  let problem = false;
  let doc: Document;
  try {
    doc = new DOMParser({
      onError: (level) => {
        if (level !== 'warning') problem = true;
      },
    }).parseFromString(xml.replace(/^\uFEFF/, ''), 'text/xml');
  } catch {
    // xmldom throws on fatal errors (no root element, mismatched tags) besides reporting them.
    return undefined;
  }
  if (problem || !doc.documentElement) return undefined;
  const texts = new Map<string, string>();
  const elements = doc.getElementsByTagName('*');
  for (let i = 0; i < elements.length; i++) {
    const node = elements.item(i);
    const name = node?.localName ?? '';
    if (node && localNames.includes(name) && !texts.has(name)) texts.set(name, node.textContent ?? '');
  }
  return texts;
}
