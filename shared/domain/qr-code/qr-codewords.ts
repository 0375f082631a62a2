// Text → the interleaved data + error correction codewords of the smallest fitting version (byte mode).
import { blockLayout, type EcLevel } from './qr-tables.js';
import { reedSolomonRemainder } from './reed-solomon.js';

export interface Codewords {
  version: number;
  codewords: Uint8Array;
}

const BYTE_MODE = 0b0100;

function countBits(version: number): number {
  return version <= 9 ? 8 : 16;
}

/** Byte mode only: the deep links are lowercase URLs, so alphanumeric/numeric segments would save little. */
export function encodeCodewords(text: string, level: EcLevel): Codewords {
  const bytes = Buffer.from(text, 'utf8');
  for (let version = 1; version <= 40; version++) {
    const layout = blockLayout(version, level);
    const ccBits = countBits(version);
    if (4 + ccBits + bytes.length * 8 > layout.dataCodewords * 8) continue;
    const data = dataCodewords(bytes, ccBits, layout.dataCodewords);
    return { version, codewords: interleave(data, layout.totalCodewords, layout.blocks, layout.ecPerBlock) };
  }
  throw new RangeError(`QR text too long: ${bytes.length} bytes exceed version 40 at level ${level}`);
}

function dataCodewords(bytes: Uint8Array, ccBits: number, capacity: number): Uint8Array {
  const out = new Uint8Array(capacity);
  let bitPos = 0;
  const put = (value: number, bits: number): void => {
    for (let i = bits - 1; i >= 0; i--, bitPos++) {
      if ((value >>> i) & 1) out[bitPos >>> 3]! |= 0x80 >>> (bitPos & 7);
    }
  };
  put(BYTE_MODE, 4);
  put(bytes.length, ccBits);
  for (const b of bytes) put(b, 8);
  // Terminator (≤ 4 zero bits) and zero padding to a byte boundary are already zero in `out`.
  let i = (Math.min(bitPos + 4, capacity * 8) + 7) >>> 3;
  for (let pad = 0xec; i < capacity; i++, pad ^= 0xec ^ 0x11) out[i] = pad;
  return out;
}

/** Splits into blocks (short blocks first, long ones one codeword longer), appends EC, interleaves. */
function interleave(data: Uint8Array, total: number, blocks: number, ecPerBlock: number): Uint8Array {
  const shortBlocks = blocks - (total % blocks);
  const shortDataLen = Math.floor(total / blocks) - ecPerBlock;
  const out = new Uint8Array(total);
  const ecBlocks: Uint8Array[] = [];
  let offset = 0;
  for (let b = 0; b < blocks; b++) {
    const len = shortDataLen + (b < shortBlocks ? 0 : 1);
    const block = data.subarray(offset, offset + len);
    ecBlocks.push(reedSolomonRemainder(block, ecPerBlock));
    // Data codeword i of block b goes to column i of the interleaving table.
    for (let i = 0; i < len; i++) {
      out[i < shortDataLen ? i * blocks + b : shortDataLen * blocks + (b - shortBlocks)] = block[i]!;
    }
    offset += len;
  }
  const ecStart = data.length;
  for (let b = 0; b < blocks; b++) {
    const ec = ecBlocks[b]!;
    for (let i = 0; i < ecPerBlock; i++) out[ecStart + i * blocks + b] = ec[i]!;
  }
  return out;
}
