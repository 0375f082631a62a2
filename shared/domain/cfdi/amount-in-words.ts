/**
 * "Importe con letra": the total of a CFDI written in Spanish words the way Mexican invoices print it,
 * e.g. 1234.56 MXN → "MIL DOSCIENTOS TREINTA Y CUATRO PESOS 56/100 M.N.".
 */
import { Money } from '../money.js';

const UNITS = [
  'CERO',
  'UNO',
  'DOS',
  'TRES',
  'CUATRO',
  'CINCO',
  'SEIS',
  'SIETE',
  'OCHO',
  'NUEVE',
  'DIEZ',
  'ONCE',
  'DOCE',
  'TRECE',
  'CATORCE',
  'QUINCE',
  'DIECISÉIS',
  'DIECISIETE',
  'DIECIOCHO',
  'DIECINUEVE',
  'VEINTE',
  'VEINTIUNO',
  'VEINTIDÓS',
  'VEINTITRÉS',
  'VEINTICUATRO',
  'VEINTICINCO',
  'VEINTISÉIS',
  'VEINTISIETE',
  'VEINTIOCHO',
  'VEINTINUEVE',
] as const;
const TENS = ['', '', '', 'TREINTA', 'CUARENTA', 'CINCUENTA', 'SESENTA', 'SETENTA', 'OCHENTA', 'NOVENTA'] as const;
const HUNDREDS = ['', 'CIENTO', 'DOSCIENTOS', 'TRESCIENTOS', 'CUATROCIENTOS', 'QUINIENTOS', 'SEISCIENTOS', 'SETECIENTOS', 'OCHOCIENTOS', 'NOVECIENTOS'] as const;

const MAX_INTEGER = 999_999_999;

interface CurrencyWords {
  singular: string;
  plural: string;
  suffix: string;
}

/** Currencies with a spoken name; any other prints only its code after the cents. */
const CURRENCIES: Readonly<Record<string, CurrencyWords>> = {
  MXN: { singular: 'PESO', plural: 'PESOS', suffix: 'M.N.' },
  USD: { singular: 'DÓLAR', plural: 'DÓLARES', suffix: 'USD' },
};

/**
 * 0–999 in words. `apocope` shortens a final "UNO" to "UN" (VEINTIÚN, TREINTA Y UN) because a noun
 * follows: MIL, MILLONES, PESOS.
 */
function hundredsInWords(n: number, apocope: boolean): string {
  if (n === 100) return 'CIEN';
  const words: string[] = [];
  const hundreds = Math.floor(n / 100);
  const rest = n % 100;
  if (hundreds > 0) words.push(HUNDREDS[hundreds]!);
  if (rest > 0 || hundreds === 0) {
    if (rest < 30) {
      words.push(UNITS[rest]!);
    } else {
      const units = rest % 10;
      words.push(units === 0 ? TENS[Math.floor(rest / 10)]! : `${TENS[Math.floor(rest / 10)]!} Y ${UNITS[units]!}`);
    }
  }
  const text = words.join(' ');
  if (!apocope) return text;
  if (text.endsWith('VEINTIUNO')) return `${text.slice(0, -'VEINTIUNO'.length)}VEINTIÚN`;
  if (text.endsWith('UNO')) return text.slice(0, -1);
  return text;
}

/** 0–999,999,999 in words; `apocope` as in hundredsInWords, for the last group. */
function integerInWords(n: number, apocope: boolean): string {
  if (n === 0) return 'CERO';
  const millions = Math.floor(n / 1_000_000);
  const thousands = Math.floor(n / 1000) % 1000;
  const units = n % 1000;
  const words: string[] = [];
  if (millions === 1) words.push('UN MILLÓN');
  else if (millions > 1) words.push(`${hundredsInWords(millions, true)} MILLONES`);
  // "MIL", never "UN MIL"; but "VEINTIÚN MIL", "CIENTO UN MIL".
  if (thousands === 1) words.push('MIL');
  else if (thousands > 1) words.push(`${hundredsInWords(thousands, true)} MIL`);
  if (units > 0) words.push(hundredsInWords(units, apocope));
  return words.join(' ');
}

/**
 * `total` is a non-negative decimal string (as written in the CFDI); the cents are its value rounded
 * half-up to 2 decimals. Up to 999,999,999.99.
 */
export function amountInWords(total: string, currency: string): string {
  if (!/^\d+(\.\d+)?$/.test(total)) throw new RangeError(`not a non-negative decimal amount: ${JSON.stringify(total)}`);
  // Rounded as a decimal, then split as text: money never goes through a JS float.
  const [integerText = '0', cents = '00'] = new Money(total).toFixed(2).split('.');
  const integer = Number(integerText);
  if (integer > MAX_INTEGER) throw new RangeError(`amount too large to write in words: ${total}`);

  const words = CURRENCIES[currency];
  if (!words) return `${integerInWords(integer, false)} ${cents}/100 ${currency}`;
  const noun = integer === 1 ? words.singular : words.plural;
  // "UN MILLÓN DE PESOS", "DOS MILLONES DE PESOS": a round number of millions takes "DE".
  const of = integer >= 1_000_000 && integer % 1_000_000 === 0 ? 'DE ' : '';
  return `${integerInWords(integer, true)} ${of}${noun} ${cents}/100 ${words.suffix}`;
}
