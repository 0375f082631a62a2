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
  db: Db;
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
