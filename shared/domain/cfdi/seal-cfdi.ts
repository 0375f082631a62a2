import { createPrivateKey, createSign, createVerify, X509Certificate, type KeyObject } from 'node:crypto';
import { cadenaOriginal } from './cadena-original.js';
import { attribute, setAttribute, type XmlElement } from './xml-element.js';

/** A merchant's CSD ready to sign: node:crypto's KeyObject (fast) and the certificate's CFDI fields. */
export interface CsdSigner {
  certificateNumber: string;
  /** Base64 of the DER certificate, as Comprobante/@Certificado carries it. */
  certificateBase64: string;
  privateKey: KeyObject;
}

/** NoCertificado is the certificate serial written as ASCII digits: the serial's hex bytes decoded. */
function certificateNumberOf(certificate: X509Certificate): string {
  return Buffer.from(certificate.serialNumber.length % 2 === 0 ? certificate.serialNumber : `0${certificate.serialNumber}`, 'hex').toString('latin1');
}

/** Opens the CSD once (decrypting the PKCS#8 key is the slow part); the signer is then reused. */
export function csdSigner(certificateDer: Buffer, privateKeyDer: Buffer, password: string): CsdSigner {
  const certificate = new X509Certificate(certificateDer);
  const privateKey = createPrivateKey({ key: privateKeyDer, format: 'der', type: 'pkcs8', passphrase: password });
  return { certificateNumber: certificateNumberOf(certificate), certificateBase64: certificateDer.toString('base64'), privateKey };
}

export interface SealedCfdi {
  cadena: string;
  seal: string;
}

/** Writes NoCertificado and Certificado, then Sello = base64(RSA-SHA256(cadena original)). */
export function sealCfdi(comprobante: XmlElement, signer: CsdSigner): SealedCfdi {
  setAttribute(comprobante, 'NoCertificado', signer.certificateNumber);
  setAttribute(comprobante, 'Certificado', signer.certificateBase64);
  const cadena = cadenaOriginal(comprobante);
  const seal = createSign('RSA-SHA256').update(cadena, 'utf8').sign(signer.privateKey, 'base64');
  setAttribute(comprobante, 'Sello', seal);
  return { cadena, seal };
}

/** Checks Sello against the cadena with the public key of the document's own Certificado. */
export function verifyCfdiSeal(comprobante: XmlElement): boolean {
  const certificate = attribute(comprobante, 'Certificado');
  const seal = attribute(comprobante, 'Sello');
  if (!certificate || !seal) return false;
  let parsed: X509Certificate;
  try {
    parsed = new X509Certificate(Buffer.from(certificate, 'base64'));
  } catch {
    return false;
  }
  if (attribute(comprobante, 'NoCertificado') !== certificateNumberOf(parsed)) return false;
  return createVerify('RSA-SHA256').update(cadenaOriginal(comprobante), 'utf8').verify(parsed.publicKey, seal, 'base64');
}
