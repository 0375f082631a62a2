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
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await task(items[i]!);
    }
  }));
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
    return stderr.split('\n').filter((line) => line !== '' && !line.endsWith(' validates')).join('\n');
  }
}
