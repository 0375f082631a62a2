import type { Config } from '../config.js';
import type { Db } from '../db.js';
import { diskFileStore, postgresFileStore, type FileStore } from './file-store.js';
import { s3FileStore } from './s3-file-store.js';

export type FileStoreConfig = Pick<Config, 'fileStore' | 'fileStoreDir' | 's3Bucket' | 's3Endpoint' | 's3Region' | 's3AccessKeyId' | 's3SecretAccessKey'>;

/** The backend `FILE_STORE` names (docs/stamping.md, "Files"). */
export function fileStoreFromConfig(config: FileStoreConfig, db: Db): FileStore {
  switch (config.fileStore) {
    case 'postgres':
      return postgresFileStore(db);
    case 's3':
      return s3FileStore(config);
    case 'disk':
      return diskFileStore(config.fileStoreDir);
  }
}
