/**
 * Lookup by key in a tab-separated text sorted by its first column (ASCII keys), without parsing it:
 * one pass records where each line starts, then each lookup is a binary search over the raw bytes and
 * decodes only the line it finds. This is how the 52,000-row c_ClaveProdServ loads in a few milliseconds.
 */
const TAB = 9;
const NEWLINE = 10;

export class SortedLineIndex {
  readonly #text: Buffer;
  readonly #starts: Uint32Array;

  constructor(text: Buffer) {
    this.#text = text;
    const starts: number[] = [];
    for (let at = 0; at < text.length;) {
      starts.push(at);
      const end = text.indexOf(NEWLINE, at);
      at = end === -1 ? text.length : end + 1;
    }
    this.#starts = Uint32Array.from(starts);
  }

  get size(): number {
    return this.#starts.length;
  }

  /** The line's fields (including the key) or undefined. */
  find(key: string): string[] | undefined {
    let low = 0;
    let high = this.#starts.length - 1;
    while (low <= high) {
      const mid = (low + high) >>> 1;
      const order = this.#compare(key, this.#starts[mid]!);
      if (order === 0) return this.#line(mid).split('\t');
      if (order < 0) high = mid - 1;
      else low = mid + 1;
    }
    return undefined;
  }

  /** Every line's fields, in key order. */
  *lines(): Generator<string[]> {
    for (let i = 0; i < this.#starts.length; i++) yield this.#line(i).split('\t');
  }

  #line(i: number): string {
    const start = this.#starts[i]!;
    const next = this.#starts[i + 1] ?? this.#text.length;
    const end = this.#text[next - 1] === NEWLINE ? next - 1 : next;
    return this.#text.toString('utf8', start, end);
  }

  /** Compares `key` with the first field of the line at `start`, byte by byte. */
  #compare(key: string, start: number): number {
    const text = this.#text;
    for (let i = 0; ; i++) {
      const at = start + i;
      const lineEnded = at >= text.length || text[at] === TAB || text[at] === NEWLINE;
      if (i === key.length) return lineEnded ? 0 : -1;
      if (lineEnded) return 1;
      const diff = key.charCodeAt(i) - text[at]!;
      if (diff !== 0) return diff;
    }
  }
}
