// Reed–Solomon error correction over GF(256) with the QR polynomial x^8 + x^4 + x^3 + x^2 + 1.
const EXP = new Uint8Array(512);
const LOG = new Uint8Array(256);
{
  let x = 1;
  for (let i = 0; i < 255; i++) {
    EXP[i] = x;
    LOG[x] = i;
    x <<= 1;
    if (x & 0x100) x ^= 0x11d;
  }
  // Doubled so that EXP[LOG[a] + LOG[b]] needs no modulo.
  for (let i = 255; i < 512; i++) EXP[i] = EXP[i - 255]!;
}

function mul(a: number, b: number): number {
  return a === 0 || b === 0 ? 0 : EXP[LOG[a]! + LOG[b]!]!;
}

const generators = new Map<number, Uint8Array>();

/** Coefficients of prod(x - α^i), i < degree, highest power first, leading 1 dropped. */
function generator(degree: number): Uint8Array {
  let poly = generators.get(degree);
  if (poly) return poly;
  poly = new Uint8Array(degree);
  poly[degree - 1] = 1;
  let root = 1;
  for (let i = 0; i < degree; i++) {
    for (let j = 0; j < degree; j++) {
      poly[j] = mul(poly[j]!, root) ^ (j + 1 < degree ? poly[j + 1]! : 0);
    }
    root = mul(root, 2);
  }
  generators.set(degree, poly);
  return poly;
}

/** The `degree` error correction codewords for `data` (remainder of data·x^degree by the generator). */
export function reedSolomonRemainder(data: Uint8Array, degree: number): Uint8Array {
  const gen = generator(degree);
  const rem = new Uint8Array(degree);
  for (let i = 0; i < data.length; i++) {
    const factor = data[i]! ^ rem[0]!;
    rem.copyWithin(0, 1);
    rem[degree - 1] = 0;
    if (factor === 0) continue;
    const logFactor = LOG[factor]!;
    for (let j = 0; j < degree; j++) {
      const g = gen[j]!;
      if (g !== 0) rem[j]! ^= EXP[LOG[g]! + logFactor]!;
    }
  }
  return rem;
}
