// The lean server measured in a bench run: started as its own processes on `port`, loaded exactly as the
// project will be (bench/lean/load.ts), stopped (its table dropped) before the project starts, so the two
// never share the cores.
import { once } from 'node:events';
import { loadConfig } from '../../shared/platform/config.js';
import { startProcess, type ServiceEnv } from '../stack.js';
import { cpuReader } from './cpu.js';
import { measureQrRoutes, type QrRouteFigures, type QrRouteLoad } from './load.js';

export async function measureLean(env: ServiceEnv, port: number, load: Omit<QrRouteLoad, 'baseUrl'>): Promise<QrRouteFigures> {
  const lean = startProcess('./lean/main.ts', env, { PORT: String(port) });
  const exited = once(lean, 'exit');
  try {
    await Promise.race([
      once(lean, 'message'),
      exited.then(([code]) => {
        throw new Error(`the lean server exited (${String(code)}) before listening`);
      }),
    ]);
    // Its CPU: the primary and its node:cluster workers.
    const cpu = lean.pid === undefined ? undefined : cpuReader({ API: [lean.pid] }, loadConfig(env).redisUrl, env.DATABASE_URL);
    return await measureQrRoutes({ ...load, ...(cpu ? { cpu } : {}), baseUrl: `http://127.0.0.1:${port}` });
  } finally {
    if (lean.exitCode === null && lean.signalCode === null) {
      lean.kill('SIGTERM');
      await exited;
    }
  }
}
