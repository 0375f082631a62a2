// `npm run docs:config`: writes .env.example and docs/configuration.md from shared/platform/config.ts.
import { writeFileSync } from 'node:fs';
import { renderConfigDoc, renderEnvExample } from './config-docs.js';

const root = new URL('../', import.meta.url).pathname;
writeFileSync(`${root}.env.example`, renderEnvExample());
writeFileSync(`${root}docs/configuration.md`, renderConfigDoc());
