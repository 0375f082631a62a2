/**
 * A fake SMTP server on loopback (plain SMTP, no TLS, no authentication required) for shared/email's
 * mailer. It keeps every accepted message with its envelope and a minimal MIME reading of it (enough for
 * what nodemailer writes: nested multiparts, base64 and quoted-printable bodies, RFC 2047 headers), and
 * tests script failures: a 451 or 550 reply to RCPT TO or to the end of DATA, or no reply at all.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SMTPServer, type SMTPServerSession } from 'smtp-server';

export interface FakeSmtpFailure {
  /** 451: temporary refusal; 550: permanent refusal; 'hang': never answer, so the client times out. */
  code: 451 | 550 | 'hang';
  message?: string;
  /** The command that fails: RCPT TO (default, once per recipient) or the end of DATA. */
  at?: 'rcpt' | 'data';
}

export interface MimePart {
  /** Lower-case names; values unfolded, encoded words decoded. */
  headers: Map<string, string>;
  /** Lower-case type without parameters, e.g. text/html. */
  contentType: string;
  filename?: string;
  /** Transfer encoding undone. */
  body: Buffer;
}

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: Buffer;
  headers: Map<string, string>;
  /** The leaves of the MIME tree, in order. */
  parts: MimePart[];
  /** The decoded content of the part with that filename. */
  attachment(filename: string): Buffer | undefined;
  /** The first text/plain or text/html part that is not an attachment, as UTF-8. */
  body(contentType: 'text/plain' | 'text/html'): string | undefined;
}

export interface FakeSmtpServer {
  /** smtp://127.0.0.1:<port> */
  url: string;
  messages: ReceivedMail[];
  /** Resolves with the first `n` messages once they have arrived; rejects after `timeoutMs`. */
  waitForMessages(n: number, timeoutMs: number): Promise<ReceivedMail[]>;
  /** The next `count` commands at `failure.at` fail that way; afterwards they succeed again. */
  failNext(count: number, failure: FakeSmtpFailure): void;
  close(): Promise<void>;
}

const DEFAULT_MESSAGES = { 451: 'Requested action aborted: try again later', 550: 'Mailbox unavailable' } as const;

/** `mailDir`: where each accepted message is also written as an .eml file a person can open (development). */
export async function startFakeSmtpServer(options: { mailDir?: string } = {}): Promise<FakeSmtpServer> {
  if (options.mailDir) mkdirSync(options.mailDir, { recursive: true });
  const messages: ReceivedMail[] = [];
  const failures: FakeSmtpFailure[] = [];
  const arrivals = new Set<() => void>();

  /** The scripted failure for this command, if the next one in line is for it. */
  function takeFailure(at: 'rcpt' | 'data'): FakeSmtpFailure | undefined {
    return (failures[0]?.at ?? 'rcpt') === at ? failures.shift() : undefined;
  }

  /** Answers with the failure (or not at all for 'hang'); false when there is none and the command goes on. */
  function fail(failure: FakeSmtpFailure | undefined, callback: (err?: Error) => void): boolean {
    if (!failure) return false;
    if (failure.code !== 'hang') {
      callback(Object.assign(new Error(failure.message ?? DEFAULT_MESSAGES[failure.code]), { responseCode: failure.code }));
    }
    return true;
  }

  const server = new SMTPServer({
    secure: false,
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    // No reverse DNS of 127.0.0.1 for every session.
    disableReverseLookup: true,
    onRcptTo(_address, _session, callback) {
      if (!fail(takeFailure('rcpt'), callback)) callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (fail(takeFailure('data'), callback)) return;
        const raw = Buffer.concat(chunks);
        messages.push(receivedMail(session, raw));
        if (options.mailDir) writeFileSync(join(options.mailDir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${messages.length}.eml`), raw);
        callback();
        for (const arrived of arrivals) arrived();
      });
    },
  });
  // Clients dropping their connection (the timeouts tests provoke) are reported here; they are not the fake's errors.
  server.on('error', () => {});

  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.server.address();
  if (!address || typeof address === 'string') throw new Error('fake SMTP server has no port');

  return {
    url: `smtp://127.0.0.1:${address.port}`,
    messages,
    waitForMessages: (n, timeoutMs) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (messages.length < n) return;
          done();
          resolve(messages.slice(0, n));
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`expected ${n} message(s) within ${timeoutMs} ms, got ${messages.length}`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          arrivals.delete(check);
        };
        arrivals.add(check);
        check();
      }),
    failNext: (count, failure) => {
      for (let i = 0; i < count; i++) failures.push(failure);
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        // smtp-server would otherwise wait 30 s for open (pooled) sessions before ending them.
        for (const connection of server.connections) connection.close();
      }),
  };
}

function receivedMail(session: SMTPServerSession, raw: Buffer): ReceivedMail {
  const root = parseEntity(raw.toString('latin1'));
  const parts = leaves(root);
  return {
    from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
    to: session.envelope.rcptTo.map((r) => r.address),
    raw,
    headers: root.headers,
    parts,
    attachment: (filename) => parts.find((p) => p.filename === filename)?.body,
    body: (contentType) => parts.find((p) => p.contentType === contentType && p.filename === undefined)?.body.toString('utf8'),
  };
}

interface Entity {
  headers: Map<string, string>;
  contentType: string;
  params: Map<string, string>;
  /** Byte string (latin1), still transfer-encoded. */
  body: string;
}

/** `text` holds the message's bytes as a latin1 string, so offsets and slices stay byte-exact. */
function parseEntity(text: string): Entity {
  const split = text.indexOf('\r\n\r\n');
  const head = split === -1 ? text : text.slice(0, split);
  const body = split === -1 ? '' : text.slice(split + 4);
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), decodeHeader(line.slice(colon + 1).trim()));
  }
  const [type = 'text/plain', ...rest] = (headers.get('content-type') ?? 'text/plain').split(';');
  return { headers, contentType: type.trim().toLowerCase(), params: parameters(rest), body };
}

function leaves(entity: Entity): MimePart[] {
  const boundary = entity.params.get('boundary');
  if (entity.contentType.startsWith('multipart/') && boundary) {
    // Parts sit between "CRLF--boundary" lines (the CRLF belongs to the delimiter); the preamble before the
    // first one and the epilogue after "--boundary--" are dropped.
    const sections = `\r\n${entity.body}`.split(`\r\n--${boundary}`).slice(1);
    return sections.filter((s) => !s.startsWith('--')).flatMap((s) => leaves(parseEntity(s.replace(/^[ \t]*\r\n/, ''))));
  }
  const disposition = parameters((entity.headers.get('content-disposition') ?? '').split(';').slice(1));
  const filename = disposition.get('filename') ?? entity.params.get('name');
  const part: MimePart = { headers: entity.headers, contentType: entity.contentType, body: transferDecode(entity) };
  if (filename !== undefined) part.filename = filename;
  return [part];
}

function parameters(pieces: string[]): Map<string, string> {
  const params = new Map<string, string>();
  for (const piece of pieces) {
    const eq = piece.indexOf('=');
    if (eq > 0)
      params.set(
        piece.slice(0, eq).trim().toLowerCase(),
        piece
          .slice(eq + 1)
          .trim()
          .replace(/^"(.*)"$/, '$1'),
      );
  }
  return params;
}

function transferDecode(entity: Entity): Buffer {
  switch ((entity.headers.get('content-transfer-encoding') ?? '7bit').toLowerCase()) {
    case 'base64':
      return Buffer.from(entity.body.replace(/\s+/g, ''), 'base64');
    case 'quoted-printable':
      return Buffer.from(unquote(entity.body.replace(/=\r\n/g, '')), 'latin1');
    default:
      return Buffer.from(entity.body, 'latin1');
  }
}

/** =XX escapes to bytes, as a latin1 string. */
function unquote(text: string): string {
  return text.replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** RFC 2047 encoded words (UTF-8, as nodemailer writes them); other header bytes are read as UTF-8. */
function decodeHeader(value: string): string {
  return Buffer.from(value, 'latin1')
    .toString('utf8')
    .replace(/(\?=)\s+(?==\?)/g, '$1')
    .replace(/=\?utf-8\?([BQ])\?([^?]*)\?=/gi, (_, encoding: string, data: string) =>
      encoding.toUpperCase() === 'B' ? Buffer.from(data, 'base64').toString('utf8') : Buffer.from(unquote(data.replace(/_/g, ' ')), 'latin1').toString('utf8'),
    );
}
