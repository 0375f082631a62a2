/**
 * The characters an XML 1.0 document may hold (§2.2 Char): tab, line feed, carriage return, U+0020–U+D7FF,
 * U+E000–U+FFFD and U+10000–U+10FFFF. Anything else (other C0 controls, U+FFFE, U+FFFF, a surrogate
 * without its pair) makes a strict parser, and so SAT and the PAC, reject the whole document. With the `u`
 * flag a lone surrogate is matched as its own code point.
 */
const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

export interface NonXmlChar {
  /** UTF-16 index of the character in the text. */
  index: number;
  codePoint: number;
}

export function isXmlChar(codePoint: number): boolean {
  return (
    codePoint === 0x9 ||
    codePoint === 0xa ||
    codePoint === 0xd ||
    (codePoint >= 0x20 && codePoint <= 0xd7ff) ||
    (codePoint >= 0xe000 && codePoint <= 0xfffd) ||
    (codePoint >= 0x10000 && codePoint <= 0x10ffff)
  );
}

/** The first character of `text` XML 1.0 cannot hold, or undefined when there is none. */
export function firstNonXmlChar(text: string): NonXmlChar | undefined {
  const found = NOT_XML_CHAR.exec(text);
  if (!found) return undefined;
  return { index: found.index, codePoint: text.codePointAt(found.index) ?? 0 };
}

/** `U+001B`. */
export function codePointName(codePoint: number): string {
  return `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** Why `text` cannot go into an XML document, phrased to follow a field name; undefined when it can. */
export function xmlCharProblem(text: string): string | undefined {
  const bad = firstNonXmlChar(text);
  if (!bad) return undefined;
  const name = codePointName(bad.codePoint);
  if (bad.codePoint >= 0xd800 && bad.codePoint <= 0xdfff) return `must not contain ${name}, half of a surrogate pair without the other half (not valid Unicode)`;
  if (bad.codePoint < 0x20) return `must not contain the control character ${name}, which XML 1.0 cannot hold`;
  return `must not contain ${name}, which is not a character (XML 1.0 cannot hold it)`;
}
