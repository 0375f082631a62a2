// Text → QR symbol modules: codewords placed on the version's layout, best of the 8 masks applied.
import { encodeCodewords } from './qr-codewords.js';
import { qrLayout } from './qr-layout.js';
import { maskPenalty } from './qr-penalty.js';
import { emptyPlanes, setModule, unpackModules, type Planes } from './qr-planes.js';
import { EC_LEVEL_FORMAT_BITS, symbolSize, type EcLevel } from './qr-tables.js';

export interface QrMatrix {
  version: number;
  mask: number;
  /** Modules per side. */
  size: number;
  /** Row-major, 1 = dark. */
  modules: Uint8Array;
}

/** BCH(15,5) format information for level + mask, XOR-masked (ISO 18004 §7.9). */
function formatBits(level: EcLevel, mask: number): number {
  const data = (EC_LEVEL_FORMAT_BITS[level] << 3) | mask;
  let rem = data;
  for (let i = 0; i < 10; i++) rem = (rem << 1) ^ ((rem >>> 9) * 0x537);
  return ((data << 10) | rem) ^ 0x5412;
}

export function encodeQrMatrix(text: string, level: EcLevel): QrMatrix {
  const { version, codewords } = encodeCodewords(text, level);
  const size = symbolSize(version);
  const { base, orderRow, orderCol, formatRow, formatCol, masks } = qrLayout(version);

  const unmasked = emptyPlanes(size);
  unmasked.rows.set(base.rows);
  unmasked.cols.set(base.cols);
  for (let bit = 0; bit < codewords.length * 8; bit++) {
    if ((codewords[bit >>> 3]! << (bit & 7)) & 0x80) setModule(unmasked, orderRow[bit]!, orderCol[bit]!, true);
  }

  const candidate = emptyPlanes(size);
  const applyMask = (mask: number): Planes => {
    const pattern = masks[mask]!;
    for (let i = 0; i < candidate.rows.length; i++) {
      candidate.rows[i] = unmasked.rows[i]! ^ pattern.rows[i]!;
      candidate.cols[i] = unmasked.cols[i]! ^ pattern.cols[i]!;
    }
    const bits = formatBits(level, mask);
    for (let i = 0; i < 30; i++) setModule(candidate, formatRow[i]!, formatCol[i]!, ((bits >>> (i % 15)) & 1) === 1);
    return candidate;
  };

  let best = 0;
  let bestPenalty = Infinity;
  for (let mask = 0; mask < 8; mask++) {
    const penalty = maskPenalty(applyMask(mask));
    if (penalty < bestPenalty) {
      bestPenalty = penalty;
      best = mask;
    }
  }
  return { version, mask: best, size, modules: unpackModules(applyMask(best)) };
}
