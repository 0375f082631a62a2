/**
 * RFC checks with @nodecfdi/rfc (the field's library): format and date, person type by length
 * (12 characters: persona moral, 13: persona física) and the check digit (homoclave's last character).
 * A check digit that does not match is reported, never refused: SAT has issued valid RFCs whose last
 * character is not the computed one (SAT's own stamped sample is addressed to MCI7306249Y1), and SAT's
 * registry behind the PAC is the authority on whether an RFC exists.
 */
import { Rfc } from '@nodecfdi/rfc';

export type PersonType = 'natural' | 'legal';

export type RfcCheck =
  | { ok: true; rfc: string; personType: PersonType; generic: boolean; foreign: boolean; checkDigit: { matches: true } | { matches: false; expected: string } }
  | { ok: false; code: 'rfc_invalid'; message: string };

export function checkRfc(value: string): RfcCheck {
  const rfc = value.trim().toUpperCase();
  const parsed = Rfc.parseOrNull(rfc);
  if (!parsed) return { ok: false, code: 'rfc_invalid', message: `"${value}" is not an RFC (3 or 4 letters, a valid date YYMMDD and a 3-character homoclave).` };
  const generic = parsed.isGeneric();
  const foreign = parsed.isForeign();
  // XAXX010101000 and XEXX010101000 are fixed SAT values, not computed RFCs: no check digit to verify.
  const checkDigit = generic || foreign || parsed.doesCheckSumMatch() ? { matches: true as const } : { matches: false as const, expected: parsed.calculateChecksum() };
  return { ok: true, rfc, personType: parsed.isMoral() ? 'legal' : 'natural', generic, foreign, checkDigit };
}
