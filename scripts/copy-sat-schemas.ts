/**
 * Copies SAT's XSD schemas the fake PAC validates against (../shared/sat/schemas, see its README) into
 * data/sat/xsd, keeping SAT's relative folder layout so the imports resolve offline. Data only (the
 * schemas), no stylesheet: the cadena original is computed in code (shared/domain/cfdi/cadena-original.ts).
 * Run when SAT publishes new schemas: `npm run copy:schemas [-- <source dir> [<target dir>]]`.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const sourceDir = resolve(process.argv[2] ?? join(root, '..', 'shared', 'sat', 'schemas'));
const targetDir = resolve(process.argv[3] ?? join(root, 'data', 'sat', 'xsd'));

export const SCHEMA_FILES = [
  'cfdi40-bundle.xsd',
  'www.sat.gob.mx/sitio_internet/cfd/4/cfdv40.xsd',
  'www.sat.gob.mx/sitio_internet/cfd/tipoDatos/tdCFDI/tdCFDI.xsd',
  'www.sat.gob.mx/sitio_internet/cfd/catalogos/catCFDI.xsd',
  'www.sat.gob.mx/sitio_internet/cfd/catalogos/Pagos/catPagos.xsd',
  'www.sat.gob.mx/sitio_internet/cfd/TimbreFiscalDigital/TimbreFiscalDigitalv11.xsd',
  'www.sat.gob.mx/sitio_internet/cfd/Pagos/Pagos20.xsd',
];

for (const file of SCHEMA_FILES) {
  mkdirSync(dirname(join(targetDir, file)), { recursive: true });
  copyFileSync(join(sourceDir, file), join(targetDir, file));
}
console.log(`copied ${SCHEMA_FILES.length} schemas to ${targetDir}`);
