import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';

const root = new URL('../', import.meta.url).pathname;

/**
 * One entry point of the service (`bin/web.ts`, `bin/worker.ts`: the production entries, with the
 * development fakes only for the parties the environment gives no address for) in its own
 * process, with its environment, its log appended to a file. Every start waits for the `ready` log line.
 */
export interface ServiceProcess {
  readonly name: string;
  /** Starts (or starts again) and resolves once the process logged its ready message. */
  start(): Promise<void>;
  /** SIGKILL: no shutdown hook runs, nothing is handed back. */
  kill(): Promise<void>;
  /** SIGTERM and wait (SIGKILL after 15 s). */
  stop(): Promise<void>;
  /** Is the current process alive (it did not exit on its own)? */
  alive(): boolean;
  /** Exits nobody asked for (a crash), with their codes. */
  readonly crashes: string[];
  readonly starts: number;
}

export function serviceProcess(name: string, script: string, ready: string, env: Record<string, string>, logFile: string): ServiceProcess {
  let child: ChildProcess | undefined;
  let expectedExit = false;
  let log: WriteStream | undefined;
  const crashes: string[] = [];
  let starts = 0;

  const exitOf = (c: ChildProcess) =>
    new Promise<void>((resolve) => {
      if (c.exitCode !== null || c.signalCode !== null) return resolve();
      c.once('exit', () => resolve());
    });

  const self: ServiceProcess = {
    name,
    crashes,
    get starts() {
      return starts;
    },
    start() {
      log ??= createWriteStream(logFile, { flags: 'a' });
      expectedExit = false;
      starts++;
      const c = spawn(process.execPath, ['--import', 'tsx', script], { cwd: root, env: { ...process.env, LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
      child = c;
      c.stderr!.pipe(log, { end: false });
      c.once('exit', (code, signal) => {
        if (!expectedExit && child === c) crashes.push(`${name} exited on its own: code ${code} signal ${signal}`);
      });
      return new Promise<void>((resolve, reject) => {
        let out = '';
        let isReady = false;
        const timer = setTimeout(() => reject(new Error(`${name} not ready within 60 s`)), 60_000);
        c.stdout!.on('data', (chunk: Buffer) => {
          log!.write(chunk);
          if (isReady) return;
          out += chunk.toString();
          if (out.includes(`"msg":"${ready}"`)) {
            isReady = true;
            out = '';
            clearTimeout(timer);
            resolve();
          }
        });
        c.once('exit', (code) => {
          clearTimeout(timer);
          if (!isReady) reject(new Error(`${name} exited with ${code} before it was ready (log: ${logFile})`));
        });
      });
    },
    async kill() {
      const c = child;
      if (!c) return;
      expectedExit = true;
      c.kill('SIGKILL');
      await exitOf(c);
    },
    async stop() {
      const c = child;
      if (!c) return;
      expectedExit = true;
      const timer = setTimeout(() => c.kill('SIGKILL'), 15_000);
      c.kill('SIGTERM');
      await exitOf(c);
      clearTimeout(timer);
    },
    alive() {
      return child !== undefined && child.exitCode === null && child.signalCode === null;
    },
  };
  return self;
}
