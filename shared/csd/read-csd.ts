import { Credential } from '@nodecfdi/credentials/node';

/** What the service keeps about a CSD besides the files themselves. */
export interface CsdInfo {
  certificateNumber: string;
  rfc: string;
  legalName: string;
  validFrom: Date;
  validTo: Date;
}

export class CsdError extends Error {
  constructor(readonly code: 'csd_unreadable' | 'csd_not_a_csd' | 'csd_wrong_password' | 'csd_key_mismatch', message: string) {
    super(message);
    this.name = 'CsdError';
  }
}

/**
 * Opens a .cer/.key pair with its password. @nodecfdi/credentials checks that the key belongs to
 * the certificate; we also refuse a FIEL (e.firma) offered as a CSD.
 */
export function readCsd(cer: Buffer, key: Buffer, password: string): CsdInfo {
  let credential: Credential;
  try {
    credential = Credential.create(cer.toString('binary'), key.toString('binary'), password);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (/pass|decrypt/i.test(message)) throw new CsdError('csd_wrong_password', 'The private key could not be opened with that password.');
    if (/does not belong/i.test(message)) throw new CsdError('csd_key_mismatch', 'The private key does not belong to the certificate.');
    throw new CsdError('csd_unreadable', `The certificate and key could not be read as a pair: ${message}`);
  }
  if (!credential.isCsd()) throw new CsdError('csd_not_a_csd', 'The certificate is not a CSD (it looks like a FIEL / e.firma).');
  const certificate = credential.certificate();
  return {
    certificateNumber: certificate.serialNumber().bytes(),
    rfc: certificate.rfc(),
    legalName: certificate.legalName(),
    validFrom: certificate.validFrom(),
    validTo: certificate.validTo(),
  };
}
