/**
 * A merchant's webhook endpoint on loopback, for tests: records every request it gets (headers and raw
 * body), answers 200 unless scripted to answer a status or never answer, and lets a test await the first
 * accepted delivery that matches, instead of sleeping.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { WebhookEventPayload } from '../shared/webhooks/event-types.js';

export interface ReceivedWebhook {
  headers: Record<string, string>;
  body: string;
  payload: WebhookEventPayload;
  /** The status this receiver answered; undefined when it never answered. */
  answered?: number;
}

export type ReceiverAnswer = { status: number } | { kind: 'hang' };

export interface FakeWebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** Answers for the next requests, in order; afterwards 200. */
  script(...answers: ReceiverAnswer[]): void;
  /** The first request answered 2xx that matches, already received or still to come. */
  accepted(match: (hook: ReceivedWebhook) => boolean): Promise<ReceivedWebhook>;
  close(): Promise<void>;
}

export async function startFakeWebhookReceiver(): Promise<FakeWebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const scripts: ReceiverAnswer[] = [];
  const waiting: { match: (hook: ReceivedWebhook) => boolean; resolve: (hook: ReceivedWebhook) => void }[] = [];
  const hanging: ServerResponse[] = [];

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, [v].flat().join(', ')]));
      let payload: WebhookEventPayload;
      try {
        payload = JSON.parse(body) as WebhookEventPayload;
      } catch {
        res.writeHead(400).end();
        return;
      }
      const hook: ReceivedWebhook = { headers, body, payload };
      received.push(hook);
      const answer = scripts.shift() ?? { status: 200 };
      if ('kind' in answer) {
        hanging.push(res);
        return;
      }
      hook.answered = answer.status;
      res.writeHead(answer.status, { 'content-type': 'text/plain' }).end('ok');
      if (answer.status >= 200 && answer.status < 300) {
        for (const w of waiting.filter((candidate) => candidate.match(hook))) {
          waiting.splice(waiting.indexOf(w), 1);
          w.resolve(hook);
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('webhook receiver: no port');
  return {
    url: `http://127.0.0.1:${address.port}/hooks`,
    received,
    script: (...answers) => void scripts.push(...answers),
    accepted(match) {
      const earlier = received.find((hook) => hook.answered !== undefined && hook.answered >= 200 && hook.answered < 300 && match(hook));
      if (earlier) return Promise.resolve(earlier);
      return new Promise((resolve) => waiting.push({ match, resolve }));
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
