import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import type { Config } from '../config.js';
import { contentTypeOfKey, newTypedKey, type FileStore } from './file-store.js';

export type S3FileStoreConfig = Pick<Config, 's3Bucket' | 's3Endpoint' | 's3Region' | 's3AccessKeyId' | 's3SecretAccessKey'>;

/**
 * Deadlines of one request: the SDK sets none, and a bucket that stops answering would hold a stamping job
 * (or a buyer's download) forever. Generous, since a PDF travels within them; the SDK retries on top.
 */
const CONNECT_TIMEOUT_MS = 5000;
const REQUEST_TIMEOUT_MS = 30_000;

/**
 * Files in an S3-compatible bucket (AWS S3, MinIO, Cloudflare R2, …): every machine sees the same files,
 * and the bucket stays private, since the service serves them itself. Keys are the other stores' keys, so a
 * key that came from a URL is checked against the same scheme before it reaches the bucket.
 */
export function s3FileStore(config: S3FileStoreConfig): FileStore {
  const client = new S3Client({
    region: config.s3Region,
    // A custom endpoint is addressed path-style: MinIO and most compatible services serve no bucket subdomains.
    ...(config.s3Endpoint ? { endpoint: config.s3Endpoint, forcePathStyle: true } : {}),
    // Without a key pair the SDK's default chain finds one (instance or task role, AWS_* variables, profile).
    ...(config.s3AccessKeyId ? { credentials: { accessKeyId: config.s3AccessKeyId, secretAccessKey: config.s3SecretAccessKey } } : {}),
    requestHandler: { connectionTimeout: CONNECT_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS },
    // A streamed body (putFile) would otherwise be sent aws-chunked with a trailing checksum, which several
    // S3-compatible services (s3rver, older MinIO, some gateways) store as the object's bytes.
    requestChecksumCalculation: 'WHEN_REQUIRED',
  });
  const bucket = config.s3Bucket;
  return {
    async put(prefix, file, extension) {
      const key = newTypedKey(prefix, file, extension);
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: file.data, ContentType: file.contentType }));
      return key;
    },
    async get(key) {
      const contentType = contentTypeOfKey(key);
      if (!contentType) return undefined;
      try {
        const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        if (!object.Body) throw new Error(`file store: the bucket answered ${key} without a body`);
        return { contentType, data: Buffer.from(await object.Body.transformToByteArray()) };
      } catch (err) {
        if (isMissingKey(err)) return undefined;
        throw err;
      }
    },
    async putFile(prefix, path, contentType, extension) {
      const key = newTypedKey(prefix, { contentType, data: Buffer.alloc(0) }, extension);
      // One PUT (up to 5 GB), streamed from the file with its length: never held in memory.
      const { size } = await stat(path);
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: createReadStream(path), ContentLength: size, ContentType: contentType }));
      return key;
    },
    async read(key) {
      const contentType = contentTypeOfKey(key);
      if (!contentType) return undefined;
      try {
        const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        if (!(object.Body instanceof Readable)) throw new Error(`file store: the bucket answered ${key} without a stream`);
        return { contentType, size: object.ContentLength ?? 0, body: object.Body };
      } catch (err) {
        if (isMissingKey(err)) return undefined;
        throw err;
      }
    },
    async remove(key) {
      if (!contentTypeOfKey(key)) return;
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    },
  };
}

/** A missing key is 404 NoSuchKey; a missing bucket is 404 too, and a misconfiguration to report, not "no file". */
function isMissingKey(err: unknown): boolean {
  return err instanceof S3ServiceException && (err.name === 'NoSuchKey' || (err.$metadata.httpStatusCode === 404 && err.name !== 'NoSuchBucket'));
}
