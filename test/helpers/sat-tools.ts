import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';

const run = promisify(execFile);

/** SAT's own data beside the repository (../shared/sat), used by tests as the independent referee. */
export const SAT_DIR = fileURLToPath(new URL('../../../shared/sat/', import.meta.url));
export const CFDI_XSD_BUNDLE = `${SAT_DIR}schemas/cfdi40-bundle.xsd`;
export const CADENA_XSLT = `${SAT_DIR}schemas/www.sat.gob.mx/sitio_internet/cfd/4/cadenaoriginal_4_0/cadenaoriginal_4_0.xslt`;

/** The cadena original of an XML file as SAT's stylesheet computes it, with Debian's xsltproc. */
export async function satCadena(path: string): Promise<string> {
  // SAT's stylesheets declare XSLT 2.0; xsltproc warns on stderr and produces the right output (sat/README.md §5).
  const { stdout } = await run('xsltproc', ['--nonet', CADENA_XSLT, path], { maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}

/** Runs `task` over `items`, `width` at a time. */
export async function inParallel<T, R>(items: readonly T[], width: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await task(items[i]!);
      }
    }),
  );
  return results;
}

/** xmllint against the CFDI 4.0 + TFD + Pagos bundle; resolves with its complaints ('' when all validate). */
export async function xsdInvalid(paths: string[]): Promise<string> {
  try {
    await run('xmllint', ['--noout', '--nonet', '--schema', CFDI_XSD_BUNDLE, ...paths], { maxBuffer: 64 * 1024 * 1024 });
    return '';
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr ?? String(err);
    // xmllint reports "<file> validates" for each good file, also when another one fails.
    return stderr
      .split('\n')
      .filter((line) => line !== '' && !line.endsWith(' validates'))
      .join('\n');
  }
}

/**
 * What openssl says of each document's Sello over our cadena, with the public key of the certificate
 * (Base64 DER) that sealed them: "Verified OK" per document when all is well. Works in `dir`.
 */
export async function opensslVerdicts(dir: string, certificateBase64: string, documents: { xml: string; cadena: string }[]): Promise<string[]> {
  const { writeFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const certificate = join(dir, 'csd.cer.pem');
  writeFileSync(certificate, `-----BEGIN CERTIFICATE-----\n${certificateBase64.replace(/(.{64})/g, '$1\n')}\n-----END CERTIFICATE-----\n`);
  await run('openssl', ['x509', '-in', certificate, '-pubkey', '-noout', '-out', join(dir, 'csd.pub.pem')]);
  const verdicts: string[] = [];
  for (const [i, doc] of documents.entries()) {
    writeFileSync(join(dir, `seal-${i}.sig`), Buffer.from(/Sello="([^"]+)"/.exec(doc.xml)![1]!, 'base64'));
    writeFileSync(join(dir, `seal-${i}.txt`), doc.cadena);
    const { stdout } = await run('openssl', ['dgst', '-sha256', '-verify', join(dir, 'csd.pub.pem'), '-signature', join(dir, `seal-${i}.sig`), join(dir, `seal-${i}.txt`)]);
    verdicts.push(stdout.trim());
  }
  return verdicts;
}
