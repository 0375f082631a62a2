import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { text } from 'node:stream/consumers';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HeadObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { expect } from 'chai';
import S3rver from 's3rver';
import { createApp } from '../../../../api/app.js';
import { loadConfig, type Config } from '../../../../shared/platform/config.js';
import { db } from '../../../../shared/platform/db.js';
import { fileStoreFromConfig } from '../../../../shared/platform/storage/file-store-from-config.js';
import { fileUrl, type FileStore } from '../../../../shared/platform/storage/file-store.js';
import { harness } from '../../../helpers/harness.js';
import { rejection } from '../../../helpers/rejection.js';

const BUCKET = 'af-files';
// s3rver's one account; it checks the key id of every request, but does not verify SigV4 signatures.
const CREDENTIALS = { S3_ACCESS_KEY_ID: 'S3RVER', S3_SECRET_ACCESS_KEY: 'S3RVER' };

const FILES = {
  png: { contentType: 'image/png', data: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 1, 2, 255]) },
  xml: { contentType: 'application/xml', data: Buffer.from('<?xml version="1.0" encoding="UTF-8"?><cfdi:Comprobante Total="116.00"/>') },
  pdf: { contentType: 'application/pdf', data: Buffer.from('%PDF-1.7 the bytes of an invoice') },
} as const;

describe('file store on an S3-compatible bucket (s3rver on loopback)', () => {
  let dir: string;
  let s3rver: S3rver;
  let endpoint: string;

  const s3Config = (env: Record<string, string> = {}): Readonly<Config> =>
    loadConfig({ ...process.env, FILE_STORE: 's3', S3_BUCKET: BUCKET, S3_ENDPOINT: endpoint, S3_REGION: 'us-east-1', ...CREDENTIALS, ...env });

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 's3-file-store-'));
    s3rver = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dir, configureBuckets: [{ name: BUCKET }] });
    const { port } = await s3rver.run();
    endpoint = `http://127.0.0.1:${port}`;
  });
  after(async () => {
    await s3rver.close();
    await rm(dir, { recursive: true, force: true });
  });

  let files: FileStore;
  beforeEach(() => {
    files = fileStoreFromConfig(s3Config(), db());
  });

  for (const [extension, file] of Object.entries(FILES)) {
    it(`gives back a ${extension} file's bytes and type, and the bucket holds it with its content type`, async () => {
      const key = await files.put('invoices', file, extension);
      expect(key).to.match(new RegExp(`^invoices/[A-Za-z0-9_-]{22}\\.${extension}$`));
      expect(await files.get(key)).to.deep.equal(file);
      const client = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
      const head = await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }));
      client.destroy();
      expect(head.ContentType).to.equal(file.contentType);
    });
  }

  it('stores a ZIP from a file in one streamed PUT, reads it back as a stream, and removes it (issue #32)', async () => {
    const source = join(dir, 'export.zip');
    await writeFile(source, 'PK the bytes of an export');
    const key = await files.putFile('exports', source, 'application/zip', 'zip');
    const stream = (await files.read(key))!;
    expect(stream).to.include({ contentType: 'application/zip', size: 25 });
    expect(await text(stream.body)).to.equal('PK the bytes of an export');
    await files.remove(key);
    expect(await files.get(key)).to.equal(undefined);
  });

  it('knows nothing of a key it did not make, and keys from outside the scheme never reach the bucket', async () => {
    expect(await files.get('invoices/AAAAAAAAAAAAAAAAAAAAAA.pdf')).to.equal(undefined);
    const key = await files.put('logos/m1', FILES.png, 'png');
    for (const hostile of ['../' + key, `${key}/../../x.png`, '/etc/passwd', 'logos/m1/..%2f.png', 'a\\b.png', 'logos/m1/x.constructor']) {
      expect(await files.get(hostile), hostile).to.equal(undefined);
    }
  });

  it('refuses to store a type under another extension', async () => {
    expect((await rejection(files.put('invoices', FILES.pdf, 'xml'), Error)).message).to.include('is not stored as .xml');
  });

  it('a missing bucket is an error, not a missing file', async () => {
    const elsewhere = fileStoreFromConfig(s3Config({ S3_BUCKET: 'no-such-bucket' }), db());
    expect((await rejection(elsewhere.get('invoices/AAAAAAAAAAAAAAAAAAAAAA.pdf'), S3ServiceException)).name).to.equal('NoSuchBucket');
  });

  it('the bucket refuses an unknown access key', async () => {
    const stranger = fileStoreFromConfig(s3Config({ S3_ACCESS_KEY_ID: 'NOT-S3RVER' }), db());
    const refused = await rejection(stranger.put('invoices', FILES.pdf, 'pdf'), S3ServiceException);
    expect(refused.name).to.equal('InvalidAccessKeyId');
    expect(refused.$metadata.httpStatusCode).to.equal(403);
  });

  it('FILE_STORE=s3 without a bucket, or with half a key pair, stops the boot', () => {
    expect(() => loadConfig({ NODE_ENV: 'development', FILE_STORE: 's3' })).to.throw('config: FILE_STORE=s3 needs S3_BUCKET');
    expect(() => loadConfig({ NODE_ENV: 'development', FILE_STORE: 's3', S3_BUCKET: BUCKET, S3_ACCESS_KEY_ID: 'id' })).to.throw('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY');
    expect(() => loadConfig({ NODE_ENV: 'development', FILE_STORE: 's3', S3_BUCKET: BUCKET, S3_ENDPOINT: 'minio:9000' })).to.throw('S3_ENDPOINT must be an http(s) URL');
  });

  it('the API configured with FILE_STORE=s3 serves a logo kept in the bucket', async () => {
    const config = s3Config();
    const app = createApp({ ...harness().deps, config, files: fileStoreFromConfig(config, db()) });
    const server: Server = app.listen(0, '127.0.0.1');
    try {
      await new Promise<void>((resolve) => server.once('listening', resolve));
      const address = server.address();
      if (!address || typeof address === 'string') throw new Error('no port');
      const key = await files.put(`logos/${randomUUID()}`, FILES.png, 'png');
      const url = fileUrl(`http://127.0.0.1:${address.port}`, key);
      const res = await fetch(url);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('image/png');
      expect(Buffer.from(await res.arrayBuffer())).to.deep.equal(FILES.png.data);
      expect((await fetch(url.replace(/\.png$/, 'x.png'))).status).to.equal(404);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
