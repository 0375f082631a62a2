import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { text } from 'node:stream/consumers';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { db } from '../../../../shared/platform/db.js';
import { diskFileStore, postgresFileStore, type FileStore } from '../../../../shared/platform/storage/file-store.js';

const pdf = { contentType: 'application/pdf', data: Buffer.from('%PDF-1.7 the bytes of an invoice') };

describe('file store', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'file-store-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  for (const [name, store] of [
    ['disk', () => diskFileStore(dir)],
    ['PostgreSQL', () => postgresFileStore(db())],
  ] as const) {
    describe(`on ${name}`, () => {
      let files: FileStore;
      beforeEach(() => {
        files = store();
      });

      it('gives back the bytes and type under a new unguessable key each time', async () => {
        const first = await files.put('invoices', pdf, 'pdf');
        const second = await files.put('invoices', pdf, 'pdf');
        expect(first).to.match(/^invoices\/[A-Za-z0-9_-]{22}\.pdf$/);
        expect(second).to.not.equal(first);
        expect(await files.get(first)).to.deep.equal(pdf);
      });

      it('knows nothing of a key it did not make', async () => {
        expect(await files.get('invoices/AAAAAAAAAAAAAAAAAAAAAA.pdf')).to.equal(undefined);
        expect(await files.read('invoices/AAAAAAAAAAAAAAAAAAAAAA.pdf')).to.equal(undefined);
      });

      it('stores a file from a path, reads it back as a stream with its size, and removes it (issue #32)', async () => {
        const source = join(dir, `source-${name}.zip`);
        await writeFile(source, 'PK the bytes of an export');
        const key = await files.putFile('exports', source, 'application/zip', 'zip');
        expect(key).to.match(/^exports\/[A-Za-z0-9_-]{22}\.zip$/);
        const stream = (await files.read(key))!;
        expect(stream).to.include({ contentType: 'application/zip', size: 25 });
        expect(await text(stream.body)).to.equal('PK the bytes of an export');
        await files.remove(key);
        expect(await files.get(key)).to.equal(undefined);
        await files.remove(key); // a missing key is no error
      });
    });
  }

  it('on disk, refuses keys that would leave its directory, and leaves no partial file behind', async () => {
    const files = diskFileStore(join(dir, 'root'));
    const key = await files.put('logos/m1', { contentType: 'image/png', data: Buffer.from('png') }, 'png');
    for (const hostile of ['../root/' + key, `${key}/../../x.png`, '/etc/passwd', 'logos/m1/..%2f.png', 'a\\b.png']) {
      expect(await files.get(hostile), hostile).to.equal(undefined);
    }
    expect((await readdir(join(dir, 'root', 'logos', 'm1'))).filter((name) => name.endsWith('.partial'))).to.deep.equal([]);
  });

  it('on disk, refuses to store a type under another extension', async () => {
    let refused: unknown;
    await diskFileStore(dir)
      .put('invoices', pdf, 'xml')
      .catch((err: unknown) => (refused = err));
    expect(refused).to.be.instanceOf(Error);
  });
});
