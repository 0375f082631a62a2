/**
 * The one in-memory form of a CFDI: elements with ordered attributes. The builder makes it, the
 * serializer writes it, the cadena original reads it, and a parsed XML document comes back to it,
 * so the same code computes the cadena of what we built and of what a PAC received.
 */
export interface XmlElement {
  /** Qualified name as written, e.g. `cfdi:Concepto`. */
  name: string;
  attributes: [string, string][];
  children: XmlElement[];
}

export function element(name: string, attributes: Record<string, string | undefined>, children: XmlElement[] = []): XmlElement {
  const attrs: [string, string][] = [];
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined) attrs.push([key, value]);
  return { name, attributes: attrs, children };
}

export function attribute(node: XmlElement, name: string): string | undefined {
  for (const [key, value] of node.attributes) if (key === name) return value;
  return undefined;
}

export function setAttribute(node: XmlElement, name: string, value: string): void {
  const existing = node.attributes.find(([key]) => key === name);
  if (existing) existing[1] = value;
  else node.attributes.push([name, value]);
}

export function child(node: XmlElement, name: string): XmlElement | undefined {
  return node.children.find((c) => c.name === name);
}

export function children(node: XmlElement, name: string): XmlElement[] {
  return node.children.filter((c) => c.name === name);
}

/** Follows a path of child names, collecting every match at the end (like `./a/b/c` in XPath). */
export function descendants(node: XmlElement, path: readonly string[]): XmlElement[] {
  let level = [node];
  for (const name of path) level = level.flatMap((n) => children(n, name));
  return level;
}
