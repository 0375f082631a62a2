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
  constructor(
    readonly code: 'csd_unreadable' | 'csd_not_a_csd' | 'csd_wrong_password' | 'csd_key_mismatch' | 'csd_files_swapped',
    message: string,
  ) {
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
    if (opensSwapped(cer, key, password)) {
      throw new CsdError(
        'csd_files_swapped',
        'The files are swapped: the .key file was sent as the certificate and the .cer file as the private key. Send each in the other field.',
      );
    }
    throw new CsdError('csd_unreadable', 'The certificate (.cer) could not be read: send the .cer file SAT issued with this CSD, as it was downloaded (DER).');
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

/** The commonest upload mistake: the two files in each other's field. */
function opensSwapped(cer: Buffer, key: Buffer, password: string): boolean {
  try {
    Credential.create(key.toString('binary'), cer.toString('binary'), password);
    return true;
  } catch {
    return false;
  }
}
