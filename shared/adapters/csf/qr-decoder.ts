/**
 * jsQR on a worker thread. On a busy image (sensor noise, fabric, gravel) one jsQR call can take seconds
 * of CPU; on the API's event loop that would stall every request, and a synchronous call cannot be cut
 * short. A worker can: it is terminated when the deadline comes.
 */
import { Worker } from 'node:worker_threads';
import type { GreyImage } from './pdf-tools.js';

const WORKER_URL = new URL('./qr-decode-worker.cjs', import.meta.url);

/** jsQR's inversion modes we use: printed QRs are dark on light; `attemptBoth` also tries light on dark. */
export type Inversion = 'dontInvert' | 'attemptBoth';

/** One worker, started on the first decode and reused until close() (one document read). */
export class QrDecoder {
  private worker: Worker | undefined;

  constructor(private readonly deadline: number) {}

  /** True once the deadline has passed: decode() would only answer undefined. */
  get expired(): boolean {
    return Date.now() >= this.deadline;
  }

  /** The text of the QR jsQR finds; undefined when there is none or the deadline passes first. */
  decode(image: GreyImage, inversion: Inversion): Promise<string | undefined> {
    const msLeft = this.deadline - Date.now();
    if (msLeft <= 0) return Promise.resolve(undefined);
    // No execArgv: the worker is plain CommonJS, and inheriting tsx's loader would triple its start-up time.
    const worker = (this.worker ??= new Worker(WORKER_URL, { execArgv: [] }));
    // A copy in its own memory can be moved to the worker instead of cloned with whatever it shares.
    const grey = new Uint8Array(image.data);
    return new Promise((resolve, reject) => {
      const settle = (): void => {
        clearTimeout(timer);
        worker.off('message', onMessage).off('error', onError).off('exit', onExit);
      };
      const onMessage = (text: string | null): void => {
        settle();
        // An empty payload is a false positive: a blank or noisy area that happens to check out.
        resolve(text || undefined);
      };
      const onError = (err: Error): void => {
        settle();
        void this.close();
        reject(err);
      };
      const onExit = (code: number): void => {
        settle();
        this.worker = undefined;
        reject(new Error(`The QR decoder exited with code ${code}.`));
      };
      const timer = setTimeout(() => {
        settle();
        void this.close();
        resolve(undefined);
      }, msLeft);
      worker.on('message', onMessage).on('error', onError).on('exit', onExit);
      worker.postMessage({ grey, width: image.width, height: image.height, inversion }, [grey.buffer]);
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }
}
