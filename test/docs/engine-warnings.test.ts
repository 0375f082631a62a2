import { existsSync, readFileSync } from 'node:fs';
import { expect } from 'chai';
import { satisfies } from 'semver';

const root = new URL('../../', import.meta.url);

interface LockedPackage {
  engines?: { node?: string } | string[];
  dev?: boolean;
}

describe('issue #39: the README says which engine warnings `npm ci` prints on the Node.js line CI runs', () => {
  it('names exactly the installed packages whose `engines` exclude this Node.js, and this project accepts it', () => {
    const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8')) as { packages: Record<string, LockedPackage> };
    const warned = Object.entries(lock.packages)
      // Installed ones only: another platform's optional binaries (sharp's) are in the lock, not on disk.
      .filter(
        ([path, pkg]) =>
          path !== '' && existsSync(new URL(path, root)) && !Array.isArray(pkg.engines) && pkg.engines?.node !== undefined && !satisfies(process.version, pkg.engines.node),
      )
      .map(([path]) => path.replace(/^.*node_modules\//, ''))
      .sort();
    const readme = readFileSync(new URL('README.md', root), 'utf8');
    const listed = /<!-- engine-warnings -->(.*?)<!-- \/engine-warnings -->/s.exec(readme)?.[1];
    expect(listed, 'the README marks its list of expected warnings').to.be.a('string');
    expect([...listed!.matchAll(/`([^`]+)`/g)].map((m) => m[1]).sort()).to.deep.equal(warned);
    const own = (JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { engines: { node: string } }).engines.node;
    expect(satisfies(process.version, own), `this project's engines (${own}) accept the Node.js the suite runs on (${process.version})`).to.equal(true);
  });
});
