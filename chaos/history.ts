import { writeFile } from 'node:fs/promises';
import type { Answer } from './http-call.js';

/** One operation of a client: what was asked, when, and what came back. */
export interface Event {
  op: string;
  /** The idempotency key, QR id, ... the operation is about. */
  key: string;
  /** ms since the history began, at the request's start. */
  at: number;
  answer: Answer;
}

/**
 * Jepsen's split: scenarios only record what clients asked and were answered; invariants are checked on
 * the history and on the database afterwards, never while the faults run.
 */
export class History {
  readonly events: Event[] = [];
  private readonly began = performance.now();

  now(): number {
    return performance.now() - this.began;
  }

  async record(op: string, key: string, call: () => Promise<Answer>): Promise<Answer> {
    const at = this.now();
    const answer = await call();
    this.events.push({ op, key, at, answer });
    return answer;
  }

  /** One JSON line per event (bodies left out), for a look after the run. */
  async save(path: string): Promise<void> {
    await writeFile(
      path,
      this.events
        .map((e) =>
          JSON.stringify({
            op: e.op,
            key: e.key,
            at: Math.round(e.at),
            ms: Math.round(e.answer.ms),
            status: e.answer.status,
            error: e.answer.error,
            code: (e.answer.body as { error?: { code?: string } } | undefined)?.error?.code,
            request_id: e.answer.headers?.get('x-request-id'),
          }),
        )
        .join('\n'),
    );
  }

  of(op: string): Event[] {
    return this.events.filter((e) => e.op === op);
  }
}
