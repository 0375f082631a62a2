import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../chaos/free-port.js';
import { spawnRedisServer, stopProcess, untilReady } from '../../chaos/redis-server-process.js';

const run = promisify(execFile);

/** A redis-server speaking only TLS on loopback, its certificate signed by a CA made for it. */
export interface TlsRedis {
  url: string;
  /** The CA that signed the server's certificate. */
  caFile: string;
  /** Another CA, which signed nothing the server has. */
  otherCaFile: string;
  stop(): Promise<void>;
}

async function makeCa(dir: string, name: string): Promise<void> {
  await run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-days',
    '1',
    '-subj',
    `/CN=${name}`,
    '-keyout',
    join(dir, `${name}.key`),
    '-out',
    join(dir, `${name}.crt`),
  ]);
}

/** openssl makes a throwaway CA and a server certificate for 127.0.0.1 in a temp dir; the server listens on a free port. */
export async function startTlsRedis(): Promise<TlsRedis> {
  const dir = await mkdtemp(join(tmpdir(), 'afh-redis-tls-'));
  let child: ChildProcess | undefined;
  try {
    await makeCa(dir, 'ca');
    await makeCa(dir, 'other-ca');
    await writeFile(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
    await run('openssl', [
      'req',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-subj',
      '/CN=127.0.0.1',
      '-keyout',
      join(dir, 'server.key'),
      '-out',
      join(dir, 'server.csr'),
    ]);
    await run('openssl', [
      'x509',
      '-req',
      '-in',
      join(dir, 'server.csr'),
      '-CA',
      join(dir, 'ca.crt'),
      '-CAkey',
      join(dir, 'ca.key'),
      '-CAcreateserial',
      '-days',
      '1',
      '-extfile',
      join(dir, 'san.ext'),
      '-out',
      join(dir, 'server.crt'),
    ]);
    const port = await freePort();
    // The server says when it listens; nothing else tells us (a plain PING cannot reach a TLS-only port).
    const c = spawnRedisServer([
      '--port',
      '0',
      '--tls-port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--tls-cert-file',
      join(dir, 'server.crt'),
      '--tls-key-file',
      join(dir, 'server.key'),
      '--tls-ca-cert-file',
      join(dir, 'ca.crt'),
      '--tls-auth-clients',
      'no',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
      '--maxmemory-policy',
      'noeviction',
    ]);
    child = c;
    await untilReady(c);
    return {
      url: `rediss://127.0.0.1:${port}/0`,
      caFile: join(dir, 'ca.crt'),
      otherCaFile: join(dir, 'other-ca.crt'),
      async stop() {
        await stopProcess(c);
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await stopProcess(child);
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}
