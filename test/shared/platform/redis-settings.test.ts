import { expect } from 'chai';
import { loadConfig } from '../../../shared/platform/config.js';
import type { Cluster } from 'ioredis';
import { redisClient, redisOptions } from '../../../shared/platform/redis.js';

describe('issue #30: the Redis settings', () => {
  const env = { NODE_ENV: 'test' };

  it('one server by default: the queue prefix as given, no TLS', () => {
    const cfg = loadConfig({ ...env, QUEUE_PREFIX: 'af' });
    expect(cfg.redisClusterNodes).to.deep.equal([]);
    expect(cfg.queuePrefix).to.equal('af');
    expect(redisOptions('fail-fast', cfg).tls).to.equal(undefined);
  });

  it('REDIS_CLUSTER_NODES: seeds parsed, the queue prefix hash-tagged (an already tagged one kept)', () => {
    const cfg = loadConfig({ ...env, QUEUE_PREFIX: 'af', REDIS_CLUSTER_NODES: '10.0.0.1:7000, redis-b.internal:7001' });
    expect(cfg.redisClusterNodes).to.deep.equal([
      { host: '10.0.0.1', port: 7000 },
      { host: 'redis-b.internal', port: 7001 },
    ]);
    expect(cfg.queuePrefix).to.equal('{af}');
    expect(loadConfig({ ...env, QUEUE_PREFIX: 'prod-{af}', REDIS_CLUSTER_NODES: '10.0.0.1:7000' }).queuePrefix).to.equal('prod-{af}');
  });

  it('refuses a seed without a port', () => {
    expect(() => loadConfig({ ...env, REDIS_CLUSTER_NODES: '10.0.0.1' })).to.throw('config: REDIS_CLUSTER_NODES entries must be host:port, got "10.0.0.1"');
  });

  it('REDIS_SENTINELS: the Sentinels and the master name go to every connection; not together with a cluster', () => {
    const cfg = loadConfig({ ...env, REDIS_SENTINELS: '10.0.0.1:26379,10.0.0.2:26379', REDIS_SENTINEL_NAME: 'af' });
    expect(redisOptions('blocking', cfg)).to.deep.include({
      name: 'af',
      sentinels: [
        { host: '10.0.0.1', port: 26379 },
        { host: '10.0.0.2', port: 26379 },
      ],
    });
    expect(() => loadConfig({ ...env, REDIS_SENTINELS: '10.0.0.1:26379', REDIS_CLUSTER_NODES: '10.0.0.1:7000' })).to.throw(
      'config: REDIS_CLUSTER_NODES and REDIS_SENTINELS exclude each other',
    );
  });

  it('rediss:// turns TLS on, with the credentials of the URL and SNI for a host name', () => {
    const options = redisOptions('blocking', 'rediss://app:s%40cret@redis.example.test:6380/0');
    expect(options).to.include({ host: 'redis.example.test', port: 6380, username: 'app', password: 's@cret' });
    expect(options.tls).to.deep.equal({ servername: 'redis.example.test' });
  });

  it("a TLS cluster checks each node against its own name, not against REDIS_URL's host (issue #39)", () => {
    const cfg = loadConfig({ ...env, REDIS_URL: 'rediss://app:pw@unused.example.test:6380', REDIS_CLUSTER_NODES: 'node-a.example.test:7000,node-b.example.test:7001' });
    const cluster = redisClient('fail-fast', cfg) as Cluster;
    try {
      expect(cluster.options.redisOptions?.tls).to.deep.equal({});
      expect(cluster.options.redisOptions).to.include({ username: 'app', password: 'pw' });
    } finally {
      cluster.disconnect();
    }
  });

  it('refuses REDIS_TLS_CA_FILE beside a plain redis:// URL, in any mode: the file would never be read (issue #39)', () => {
    for (const NODE_ENV of ['test', 'development']) {
      expect(() => loadConfig({ NODE_ENV, REDIS_URL: 'redis://127.0.0.1:6379', REDIS_TLS_CA_FILE: '/etc/ssl/redis-ca.pem' })).to.throw(
        'config: REDIS_TLS_CA_FILE is set but REDIS_URL is not rediss:// (TLS)',
      );
    }
    expect(loadConfig({ ...env, REDIS_URL: 'rediss://127.0.0.1:6379', REDIS_TLS_CA_FILE: '/etc/ssl/redis-ca.pem' }).redisTlsCaFile).to.equal('/etc/ssl/redis-ca.pem');
  });
});
