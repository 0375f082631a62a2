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

// Unicode's names of the C0 controls XML 1.0 refuses, with their abbreviations: what a merchant searching
// their POS's output for "GS" (the GS1 group separator a barcode scanner sends) recognizes.
const C0_NAMES: Record<number, string> = {
  0x00: 'NULL / NUL',
  0x01: 'START OF HEADING / SOH',
  0x02: 'START OF TEXT / STX',
  0x03: 'END OF TEXT / ETX',
  0x04: 'END OF TRANSMISSION / EOT',
  0x05: 'ENQUIRY / ENQ',
  0x06: 'ACKNOWLEDGE / ACK',
  0x07: 'BELL / BEL',
  0x08: 'BACKSPACE / BS',
  0x0b: 'LINE TABULATION / VT',
  0x0c: 'FORM FEED / FF',
  0x0e: 'SHIFT OUT / SO',
  0x0f: 'SHIFT IN / SI',
  0x10: 'DATA LINK ESCAPE / DLE',
  0x11: 'DEVICE CONTROL ONE / DC1',
  0x12: 'DEVICE CONTROL TWO / DC2',
  0x13: 'DEVICE CONTROL THREE / DC3',
  0x14: 'DEVICE CONTROL FOUR / DC4',
  0x15: 'NEGATIVE ACKNOWLEDGE / NAK',
  0x16: 'SYNCHRONOUS IDLE / SYN',
  0x17: 'END OF TRANSMISSION BLOCK / ETB',
  0x18: 'CANCEL / CAN',
  0x19: 'END OF MEDIUM / EM',
  0x1a: 'SUBSTITUTE / SUB',
  0x1b: 'ESCAPE / ESC',
  0x1c: 'INFORMATION SEPARATOR FOUR / FS',
  0x1d: 'INFORMATION SEPARATOR THREE / GS',
  0x1e: 'INFORMATION SEPARATOR TWO / RS',
  0x1f: 'INFORMATION SEPARATOR ONE / US',
};

/** `U+001D (INFORMATION SEPARATOR THREE / GS)` for a control character, else `U+FFFE`. */
export function describeCodePoint(codePoint: number): string {
  const name = C0_NAMES[codePoint];
  return name === undefined ? codePointName(codePoint) : `${codePointName(codePoint)} (${name})`;
}

/** Why `text` cannot go into an XML document, phrased to follow a field name; undefined when it can. */
export function xmlCharProblem(text: string): string | undefined {
  const bad = firstNonXmlChar(text);
  if (!bad) return undefined;
  const name = codePointName(bad.codePoint);
  if (bad.codePoint >= 0xd800 && bad.codePoint <= 0xdfff) return `must not contain ${name}, half of a surrogate pair without the other half (not valid Unicode)`;
  if (bad.codePoint < 0x20) return `must not contain the control character ${describeCodePoint(bad.codePoint)}, which XML 1.0 cannot hold`;
  return `must not contain ${name}, which is not a character (XML 1.0 cannot hold it)`;
}
