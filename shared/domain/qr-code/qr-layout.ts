// Per-version symbol geometry (ISO 18004 §6.3): function patterns, codeword placement order,
// format-information positions and the eight data masks. Computed once per version and cached.
import { emptyPlanes, setModule, type Planes } from './qr-planes.js';
import { alignmentCentres, symbolSize } from './qr-tables.js';

export interface QrLayout {
  /** Function-pattern colours with the format areas light, ready to receive data bits. */
  base: Planes;
  /** Row and column of every data module, in codeword bit order. */
  orderRow: Uint8Array;
  orderCol: Uint8Array;
  /** Row and column of format-information bit i (first copy) and bit i - 15 (second copy). */
  formatRow: Uint8Array;
  formatCol: Uint8Array;
  /** Per mask pattern: 1 bits on the data modules it inverts. */
  masks: Planes[];
}

const MASKS: ((row: number, col: number) => boolean)[] = [
  (r, c) => (r + c) % 2 === 0,
  (r) => r % 2 === 0,
  (_r, c) => c % 3 === 0,
  (r, c) => (r + c) % 3 === 0,
  (r, c) => (Math.floor(r / 2) + Math.floor(c / 3)) % 2 === 0,
  (r, c) => ((r * c) % 2) + ((r * c) % 3) === 0,
  (r, c) => (((r * c) % 2) + ((r * c) % 3)) % 2 === 0,
  (r, c) => (((r + c) % 2) + ((r * c) % 3)) % 2 === 0,
];

const cache = new Map<number, QrLayout>();

export function qrLayout(version: number): QrLayout {
  let layout = cache.get(version);
  if (!layout) {
    layout = buildLayout(version);
    cache.set(version, layout);
  }
  return layout;
}

function buildLayout(version: number): QrLayout {
  const size = symbolSize(version);
  const base = emptyPlanes(size);
  const isFunction = new Uint8Array(size * size);
  const set = (row: number, col: number, dark: boolean): void => {
    setModule(base, row, col, dark);
    isFunction[row * size + col] = 1;
  };

  for (let i = 0; i < size; i++) {
    set(6, i, i % 2 === 0);
    set(i, 6, i % 2 === 0);
  }
  // Finder patterns with their light separators, clipped at the symbol edge.
  for (const [cr, cc] of [
    [3, 3],
    [3, size - 4],
    [size - 4, 3],
  ] as const) {
    for (let dr = -4; dr <= 4; dr++) {
      for (let dc = -4; dc <= 4; dc++) {
        const r = cr + dr;
        const c = cc + dc;
        if (r < 0 || r >= size || c < 0 || c >= size) continue;
        const dist = Math.max(Math.abs(dr), Math.abs(dc));
        set(r, c, dist !== 2 && dist !== 4);
      }
    }
  }
  const centres = alignmentCentres(version);
  const last = centres.length - 1;
  for (let i = 0; i <= last; i++) {
    for (let j = 0; j <= last; j++) {
      // These three would overlap the finder patterns.
      if ((i === 0 && j === 0) || (i === 0 && j === last) || (i === last && j === 0)) continue;
      for (let dr = -2; dr <= 2; dr++) {
        for (let dc = -2; dc <= 2; dc++) set(centres[i]! + dr, centres[j]! + dc, Math.max(Math.abs(dr), Math.abs(dc)) !== 1);
      }
    }
  }

  const formatRow = new Uint8Array(30);
  const formatCol = new Uint8Array(30);
  for (let i = 0; i < 15; i++) {
    const [ra, ca] = i < 6 ? [i, 8] : i < 8 ? [i + 1, 8] : i === 8 ? [8, 7] : [8, 14 - i];
    const [rb, cb] = i < 8 ? [8, size - 1 - i] : [size - 15 + i, 8];
    formatRow[i] = ra;
    formatCol[i] = ca;
    formatRow[15 + i] = rb;
    formatCol[15 + i] = cb;
    set(ra, ca, false);
    set(rb, cb, false);
  }
  set(size - 8, 8, true); // the always-dark module beside the lower-left finder

  if (version >= 7) {
    let rem = version;
    for (let i = 0; i < 12; i++) rem = (rem << 1) ^ ((rem >>> 11) * 0x1f25);
    const bits = (version << 12) | rem;
    for (let i = 0; i < 18; i++) {
      const dark = ((bits >>> i) & 1) === 1;
      const a = size - 11 + (i % 3);
      const b = Math.floor(i / 3);
      set(b, a, dark);
      set(a, b, dark);
    }
  }

  // Zigzag: two-column strips from the right, alternating upward and downward, skipping the timing column.
  const orderRow: number[] = [];
  const orderCol: number[] = [];
  for (let right = size - 1; right >= 1; right -= 2) {
    if (right === 6) right = 5;
    const upward = ((right + 1) & 2) === 0;
    for (let v = 0; v < size; v++) {
      const row = upward ? size - 1 - v : v;
      for (let j = 0; j < 2; j++) {
        if (isFunction[row * size + right - j]) continue;
        orderRow.push(row);
        orderCol.push(right - j);
      }
    }
  }

  const masks = MASKS.map((fn) => {
    const m = emptyPlanes(size);
    for (let r = 0; r < size; r++) {
      for (let c = 0; c < size; c++) if (!isFunction[r * size + c] && fn(r, c)) setModule(m, r, c, true);
    }
    return m;
  });

  return { base, orderRow: Uint8Array.from(orderRow), orderCol: Uint8Array.from(orderCol), formatRow, formatCol, masks };
}
