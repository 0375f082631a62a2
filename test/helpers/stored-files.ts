import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { config } from '../../shared/platform/config.js';

/**
 * How many files the run's disk store holds (the store tests use by default), under `folder` when given:
 * invoices other tests confirmed may be stamped, and their XML and PDF written, at any moment.
 */
export async function storedFileCount(folder = ''): Promise<number> {
  try {
    const entries = await readdir(join(config().fileStoreDir, folder), { recursive: true, withFileTypes: true });
    return entries.filter((entry) => entry.isFile()).length;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
}
