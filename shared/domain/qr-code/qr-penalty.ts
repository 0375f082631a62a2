// ISO 18004 §7.8.3 mask penalty (N1 = 3, N2 = 3, N3 = 40, N4 = 10), bit-sliced: each 32-bit word of
// a plane holds the same position of 32 parallel lines, so one pass of word operations scores 32 lines.
// N3 follows the common reading (as in ZXing): each dark-light-dark×3-light-dark (1:1:3:1:1) pattern
// in a row or column scores once if 4 light modules precede or follow it; outside the symbol is light.
import type { Planes } from './qr-planes.js';

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/**
 * N1 + N3 (+ N2 when `blocks`) for the lines packed in `planes`: word `k * words + w` holds module k
 * of lines 32w..32w+31. N2 is symmetric, so it is counted in one direction only.
 */
function scanLines(planes: Int32Array, size: number, words: number, blocks: boolean): number {
  let penalty = 0;
  for (let w = 0; w < words; w++) {
    const lanes = Math.min(32, size - 32 * w);
    const valid = lanes === 32 ? -1 : (1 << lanes) - 1;
    // Lanes that have a neighbouring line after them (for 2×2 blocks).
    const pairs = lanes === 32 && size > 32 * w + 32 ? -1 : valid >>> 1;
    // Modules k-1 .. k-14 of each lane (0 = light, also before the line starts).
    let h1 = 0,
      h2 = 0,
      h3 = 0,
      h4 = 0,
      h5 = 0,
      h6 = 0,
      h7 = 0,
      h8 = 0,
      h9 = 0,
      h10 = 0,
      h11 = 0,
      h12 = 0,
      h13 = 0,
      h14 = 0;
    // e1..e4: lanes whose module k-j equals module k-j-1 (runs for N1).
    let e1 = 0,
      e2 = 0,
      e3 = 0,
      e4 = 0;
    let started = 0;
    let prevVertical = 0;
    for (let k = 0; k < size + 4; k++) {
      // Past the end, 4 light modules let patterns touching the edge see their light side.
      const cur = k < size ? planes[k * words + w]! : 0;
      if (k < size) {
        const e = ~(cur ^ h1) & started;
        const run5 = e & e1 & e2 & e3; // module k ends a run of ≥ 5
        // A run of n ≥ 5 scores 3 + (n − 5): 3 when it reaches 5, then 1 per extra module.
        penalty += 3 * popcount(run5) - 2 * popcount(run5 & e4);
        if (blocks) {
          const next = w + 1 < words ? planes[k * words + w + 1]! : 0;
          const vertical = ~(cur ^ ((cur >>> 1) | (next << 31))) & pairs; // lane j equals lane j+1
          penalty += 3 * popcount(e & vertical & prevVertical);
          prevVertical = vertical;
        }
        e4 = e3;
        e3 = e2;
        e2 = e1;
        e1 = e;
        started = valid;
      }
      const core = h10 & ~h9 & h8 & h7 & h6 & ~h5 & h4;
      if (core !== 0) {
        const found = core & (~(h14 | h13 | h12 | h11) | ~(h3 | h2 | h1 | cur));
        penalty += 40 * popcount(found);
      }
      h14 = h13;
      h13 = h12;
      h12 = h11;
      h11 = h10;
      h10 = h9;
      h9 = h8;
      h8 = h7;
      h7 = h6;
      h6 = h5;
      h5 = h4;
      h4 = h3;
      h3 = h2;
      h2 = h1;
      h1 = cur;
    }
  }
  return penalty;
}

export function maskPenalty(p: Planes): number {
  const { size, words, rows, cols } = p;
  let dark = 0;
  for (let i = 0; i < rows.length; i++) dark += popcount(rows[i]!);
  const total = size * size;
  const n4 = Math.floor((Math.abs(dark * 2 - total) * 10) / total) * 10;
  // `cols` steps along each row (lanes = rows); `rows` steps down each column (lanes = columns).
  return scanLines(cols, size, words, true) + scanLines(rows, size, words, false) + n4;
}
