import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { renderConfigDoc, renderEnvExample } from '../../scripts/config-docs.js';
import { loadConfig, SETTINGS } from '../../shared/platform/config.js';

const root = new URL('../../', import.meta.url).pathname;

describe('configuration docs, derived from the one schema', () => {
  it('.env.example and docs/configuration.md are what `npm run docs:config` writes', () => {
    expect(readFileSync(`${root}.env.example`, 'utf8'), 'run npm run docs:config').to.equal(renderEnvExample());
    expect(readFileSync(`${root}docs/configuration.md`, 'utf8'), 'run npm run docs:config').to.equal(renderConfigDoc());
  });

  it('every setting the service reads is documented, and .env.example as written loads to the development defaults', () => {
    const doc = readFileSync(`${root}docs/configuration.md`, 'utf8');
    for (const s of Object.values(SETTINGS)) expect(doc, s.name).to.include(`| \`${s.name}\` |`);
    const env: Record<string, string> = {};
    for (const line of readFileSync(`${root}.env.example`, 'utf8').split('\n')) {
      const m = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
      if (m) env[m[1]!] = m[2]!;
    }
    expect(
      Object.keys(env)
        .filter((k) => k !== 'NODE_ENV')
        .sort(),
    ).to.deep.equal(
      Object.values(SETTINGS)
        .filter((s) => !(s.shownDefault !== undefined && typeof s.fallback !== 'string'))
        .map((s) => s.name)
        .sort(),
    );
    expect(loadConfig(env)).to.deep.equal(loadConfig({ NODE_ENV: 'development' }));
  });

  it('a setting that does not parse stops the boot with its name', () => {
    expect(() => loadConfig({ NODE_ENV: 'development', PORT: 'eighty' })).to.throw('config: PORT must be a non-negative integer, got "eighty"');
    expect(() => loadConfig({ NODE_ENV: 'development', FILE_STORE: 'nfs' })).to.throw('FILE_STORE must be disk, postgres or s3, got "nfs"');
    expect(loadConfig({ NODE_ENV: 'development', CSF_ATTEMPTS: '0' }).csfAttempts, 'raised to its floor').to.equal(1);
  });
});
