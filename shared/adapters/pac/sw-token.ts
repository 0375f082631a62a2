/**
 * The token SW Sapien's API wants in `Authorization: Bearer`, of either kind its SDKs take
 * (lunasoft/sw-sdk-nodejs, -python, -php, -java, -dotnet, -go):
 *
 * - The "infinite" token an account's owner generates in SW's portal (portal.sw.com.mx; SW's knowledge base
 *   "generar un token infinito"). It has no expiry, but generating another one ends it: every call then gets 401.
 * - A session token from `POST {services}/v2/security/authenticate` with the JSON body `{ user, password }`
 *   (every SDK since 2025; the older `/security/authenticate` sent them as `user` and `password` headers, as
 *   the Go SDK still does). Answer: 200 `{ status: "success", data: { token, expires_in } }`. The SDKs' READMEs
 *   give it 2 hours; the nodejs and php SDKs count those 2 hours themselves and ignore `expires_in`; the Java
 *   SDK reads `expires_in` as the expiry's Unix time in seconds (`new Date(expires_in * 1000)`). A wrong password
 *   answers `status: "error"`, `message: "AU2000 - El usuario y/o contraseña son inválidos, no se puede
 *   autenticar el servicio."` with a status below 500 (the Go SDK's test says 400).
 *
 * Either kind, refused on a call, is HTTP 401 with SW's error envelope (sw-pac-client.ts). The sources are
 * silent on how early a session token may be renewed and on an expired token's own message: this renews
 * ahead of the expiry and, on a 401, once more.
 */
import { PacCredentialsRejected, PacUnavailable } from './pac-client.js';

/** `token`: PAC_TOKEN, the portal's token; `user` and `password`: the service authenticates itself. */
export type SwCredentials = { token: string } | { user: string; password: string };

export interface SwTokens {
  /** The token to present now. */
  current(): Promise<string>;
  /**
   * After SW answered 401/403 to `rejected` (`why`: that answer, for the message): a new token, one
   * authentication shared by every call that saw the same one refused. PacCredentialsRejected when there is
   * nothing to renew (the portal's token) or SW refuses the user and password.
   */
  renewAfterRejection(rejected: string, why: string): Promise<string>;
}

/** What the SDKs document; also the longest a session token is trusted, whatever `expires_in` says. */
export const SESSION_TOKEN_MS = 2 * 3_600_000;
/** Renewed this long before its expiry at most (a tenth of its life when that is shorter). */
const MAX_MARGIN_MS = 5 * 60_000;

/** SW's message, cut short: SW's own text (a code and a sentence), never what was sent. */
export function swReason(status: number, text: string): string {
  let message = '';
  try {
    const body = JSON.parse(text) as { message?: unknown };
    if (typeof body.message === 'string') message = body.message.slice(0, 120);
  } catch {
    // not SW's envelope: the status says enough
  }
  return message ? `HTTP ${status}: ${message}` : `HTTP ${status}`;
}

/** The session's life from `expires_in`: Unix seconds as the Java SDK reads it, or (a small number) seconds from now. */
export function sessionLifetimeMs(expiresIn: unknown, nowMs: number): number {
  if (typeof expiresIn !== 'number' || !Number.isFinite(expiresIn) || expiresIn <= 0) return SESSION_TOKEN_MS;
  const ms = expiresIn > 1e9 ? expiresIn * 1000 - nowMs : expiresIn * 1000;
  // An expiry already past by our clock (skew) is not believed: the 401 renewal covers a token really dead.
  return ms > 0 ? Math.min(ms, SESSION_TOKEN_MS) : SESSION_TOKEN_MS;
}

async function authenticate(baseUrl: string, user: string, password: string, timeoutMs: number, nowMs: () => number): Promise<{ token: string; renewAt: number }> {
  let res: Response;
  let text: string;
  try {
    res = await fetch(`${baseUrl}/v2/security/authenticate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ user, password }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    text = await res.text();
  } catch (err) {
    const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
    throw new PacUnavailable(timedOut ? `no answer from the PAC's authentication within ${timeoutMs} ms` : `the PAC's authentication unreachable: ${(err as Error).message}`);
  }
  if (res.status === 400 || res.status === 401 || res.status === 403) {
    throw new PacCredentialsRejected('authentication refused', `the PAC refused PAC_USER and PAC_PASSWORD (${swReason(res.status, text)})`);
  }
  let body: { status?: unknown; data?: { token?: unknown; expires_in?: unknown } | null };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    throw new PacUnavailable(`unreadable answer from the PAC's authentication (HTTP ${res.status}, not JSON)`);
  }
  const token = body?.data?.token;
  if (res.status !== 200 || body.status !== 'success' || typeof token !== 'string' || !token) {
    throw new PacUnavailable(`unexpected answer from the PAC's authentication (HTTP ${res.status})`);
  }
  const now = nowMs();
  const life = sessionLifetimeMs(body.data?.expires_in, now);
  return { token, renewAt: now + life - Math.min(MAX_MARGIN_MS, life / 10) };
}

/** `nowMs`: the clock renewals are timed by (tests move it). */
export function swTokens(baseUrl: string, credentials: SwCredentials, timeoutMs: number, nowMs: () => number = Date.now): SwTokens {
  if ('token' in credentials) {
    const { token } = credentials;
    return {
      current: () => Promise.resolve(token),
      renewAfterRejection: (_rejected, why) =>
        Promise.reject(new PacCredentialsRejected('token rejected', `the PAC refused PAC_TOKEN (${why}); a token generated again in SW's portal ends the one before`)),
    };
  }
  const { user, password } = credentials;
  let session: { token: string; renewAt: number } | undefined;
  let pending: Promise<string> | undefined;

  /** One authentication at a time: whoever needs a token meanwhile waits for the one under way. */
  function renew(): Promise<string> {
    pending ??= authenticate(baseUrl, user, password, timeoutMs, nowMs)
      .then((fresh) => {
        session = fresh;
        return fresh.token;
      })
      .finally(() => {
        pending = undefined;
      });
    return pending;
  }

  return {
    current: () => (session && nowMs() < session.renewAt ? Promise.resolve(session.token) : renew()),
    renewAfterRejection: (rejected) => {
      // Another call already replaced the refused token: use its replacement.
      if (session && session.token !== rejected && nowMs() < session.renewAt) return Promise.resolve(session.token);
      if (session?.token === rejected) session = undefined;
      return renew();
    },
  };
}
