import { readdir } from 'node:fs/promises';
import { config } from '../../shared/config.js';

/** How many files the run's disk store holds (the store tests use by default). */
export async function storedFileCount(): Promise<number> {
  try {
    const entries = await readdir(config().fileStoreDir, { recursive: true, withFileTypes: true });
    return entries.filter((entry) => entry.isFile()).length;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
}
