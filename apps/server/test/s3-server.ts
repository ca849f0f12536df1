import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { Server } from 'node:http';
import { freePort } from './redis-server.js';

/**
 * A throw-away S3 (s3rver, a dev dependency, in-process): a free port, a temp directory, one bucket, no logs.
 * s3rver checks the access key id and a presigned URL's expiry but not V4 signatures themselves; its fixed
 * account is S3RVER/S3RVER.
 */
export interface TestS3 {
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  stop(): Promise<void>;
}

// The few parts of s3rver (CommonJS, no bundled types) used here.
interface S3rverStore {
  getResourcePath(bucket: string, key: string, resource: string): string;
  copyObject(srcBucket: string, srcKey: string, destBucket: string, destKey: string, meta: unknown): Promise<unknown>;
}
interface S3rverInstance {
  store: S3rverStore;
  httpServer?: Server;
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
}
type S3rverClass = new (opts: Record<string, unknown>) => S3rverInstance;
const S3rver = createRequire(import.meta.url)('s3rver') as S3rverClass;

export async function startS3(): Promise<TestS3> {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-s3-'));
  const bucket = 'loupe-test';
  const server = new S3rver({
    address: '127.0.0.1',
    port,
    directory: dir,
    silent: true,
    configureBuckets: [{ name: bucket }],
  });
  // Fidelity fix, not a mock: S3 (and MinIO, R2) give an object copied onto itself a new LastModified, which
  // is how the S3 BlobStore tells the orphan sweep "stored again". s3rver serves LastModified from the object
  // file's mtime and leaves that file alone on a self-copy, so touch it first.
  const copy = server.store.copyObject.bind(server.store);
  server.store.copyObject = async (srcBucket, srcKey, destBucket, destKey, meta) => {
    if (srcBucket === destBucket && srcKey === destKey) {
      const now = new Date();
      await fs.promises.utimes(server.store.getResourcePath(srcBucket, srcKey, 'object'), now, now);
    }
    return copy(srcBucket, srcKey, destBucket, destKey, meta);
  };
  await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    region: 'us-east-1',
    async stop() {
      // Keep-alive sockets from the SDK would hold close() open.
      server.httpServer?.closeAllConnections();
      await server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
