// A QR symbol held twice as 32-bit bit planes, so that masks are applied and penalties scored
// 32 modules per operation instead of one:
//   rows[r * words + (c >>> 5)] bit (c & 31) = module (r, c)   (row-major: scans down the columns)
//   cols[c * words + (r >>> 5)] bit (r & 31) = module (r, c)   (column-major: scans along the rows)
// Bits for lanes past `size` in the last word are always 0.

export interface Planes {
  size: number;
  /** 32-bit words per line: ceil(size / 32). */
  words: number;
  rows: Int32Array;
  cols: Int32Array;
}

export function emptyPlanes(size: number): Planes {
  const words = (size + 31) >>> 5;
  return { size, words, rows: new Int32Array(size * words), cols: new Int32Array(size * words) };
}

export function setModule(p: Planes, row: number, col: number, dark: boolean): void {
  const r = row * p.words + (col >>> 5);
  const c = col * p.words + (row >>> 5);
  if (dark) {
    p.rows[r]! |= 1 << (col & 31);
    p.cols[c]! |= 1 << (row & 31);
  } else {
    p.rows[r]! &= ~(1 << (col & 31));
    p.cols[c]! &= ~(1 << (row & 31));
  }
}

/** Row-major 0/1 bytes (1 = dark). */
export function unpackModules(p: Planes): Uint8Array {
  const { size, words, rows } = p;
  const out = new Uint8Array(size * size);
  for (let r = 0; r < size; r++) {
    for (let c = 0; c < size; c++) out[r * size + c] = (rows[r * words + (c >>> 5)]! >>> (c & 31)) & 1;
  }
  return out;
}
