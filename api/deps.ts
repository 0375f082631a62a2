import type { RedisClient } from '../shared/platform/redis.js';
import type { Config } from '../shared/platform/config.js';
import type { CsfClient } from '../shared/adapters/csf/csf-client.js';
import type { Db } from '../shared/platform/db.js';
import type { Logger } from '../shared/platform/logger.js';
import type { Producers } from '../shared/platform/queues.js';
import type { FileStore } from '../shared/platform/storage/file-store.js';
import type { SatCatalogs } from '../shared/sat/catalogs.js';
import type { ViewContext } from './contract/qrs/qr-transaction-view.js';

/** What the API needs from the outside world; tests build their own. */
export interface ApiDeps {
  config: Readonly<Config>;
  /** The primary: every write, and every read a write's checks or a client's next step rely on. */
  db: Db;
  /**
   * The replica (DATABASE_READ_URL) or `db` itself: what may lag a moment (the books, the status page), and through
   * onReplicaOrPrimary what a client reads right after writing it (GET of a QR, the buyer's page, resolve, preview).
   */
  readDb: Db;
  redis: RedisClient;
  producers: Producers;
  catalogs: SatCatalogs;
  logger: Logger;
  /** SAT's tax-status certificates: the buyer's page prefills from them. */
  csf: CsfClient;
  files: FileStore;
}

export function viewContext(deps: ApiDeps): ViewContext {
  return {
    catalogs: deps.catalogs,
    publicBaseUrl: deps.config.publicBaseUrl,
    qrHmacKey: deps.config.qrHmacKey,
    urlSigningKey: deps.config.urlSigningKey,
  };
}
