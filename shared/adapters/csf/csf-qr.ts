/**
 * The QR printed on SAT's tax-status certificate (Constancia de Situación Fiscal) holds the URL of SAT's
 * validator, e.g. `https://siat.sat.gob.mx/app/qr/faces/pages/mobile/validadorqr.jsf?D1=10&D2=1&D3=19010123456_CACX7605101P8`,
 * where D3 is `<idCIF>_<RFC>`.
 */

export interface CsfKey {
  rfc: string;
  idCif: string;
}

/** Shape only (3–4 letters, date, homoclave); SAT's CSF service is what tells whether it exists. */
export const RFC_SOURCE = '[A-ZÑ&]{3,4}[0-9]{6}[A-Z0-9]{3}';
export const ID_CIF_SOURCE = '[0-9]{11}';

const SAT_HOST = 'siat.sat.gob.mx';
const D3 = new RegExp(`^(${ID_CIF_SOURCE})_(${RFC_SOURCE})$`);

/** The RFC and idCIF of a CSF QR's text; undefined for any other text (another site, another QR). */
export function parseCsfQrText(text: string): CsfKey | undefined {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return undefined;
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.hostname !== SAT_HOST) return undefined;
  // Scanners and re-encoders are not consistent about the key's case; SAT reads it either way.
  const d3 = [...url.searchParams].find(([key]) => key.toUpperCase() === 'D3')?.[1];
  const match = d3 === undefined ? null : D3.exec(d3.trim().toUpperCase());
  if (!match?.[1] || !match[2]) return undefined;
  return { rfc: match[2], idCif: match[1] };
}
