// The lean server measured in a bench run: started as its own processes on `port`, loaded exactly as the
// project will be (bench/lean/load.ts), stopped (its table dropped) before the project starts, so the two
// never share the cores.
import { once } from 'node:events';
import { startProcess, type ServiceEnv } from '../stack.js';
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
    return await measureQrRoutes({ ...load, baseUrl: `http://127.0.0.1:${port}` });
  } finally {
    if (lean.exitCode === null && lean.signalCode === null) {
      lean.kill('SIGTERM');
      await exited;
    }
  }
}
