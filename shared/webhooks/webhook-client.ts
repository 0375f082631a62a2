/**
 * How deliveries reach a merchant's endpoint: one POST with the signed headers. Any answer other than
 * 2xx, a timeout or a network error is WebhookUndelivered (retried); the client never follows redirects,
 * so an endpoint cannot bounce a signed event elsewhere.
 */
export interface WebhookClient {
  post(url: string, body: string, headers: Record<string, string>): Promise<{ status: number }>;
}

export class WebhookUndelivered extends Error {
  constructor(message: string, readonly statusCode?: number) {
    super(message);
    this.name = 'WebhookUndelivered';
  }
}

export function httpWebhookClient(timeoutMs: number): WebhookClient {
  return {
    async post(url, body, headers) {
      let res: Response;
      try {
        res = await fetch(url, { method: 'POST', body, headers: { ...headers, 'user-agent': 'autofactura-webhooks/1' }, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
        // The answer's body is not read beyond what is needed to free the connection.
        await res.body?.cancel();
      } catch (err) {
        const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
        throw new WebhookUndelivered(timedOut ? `no answer within ${timeoutMs} ms` : `unreachable: ${(err as Error).message}`);
      }
      if (res.status < 200 || res.status > 299) throw new WebhookUndelivered(`answered HTTP ${res.status}`, res.status);
      return { status: res.status };
    },
  };
}
