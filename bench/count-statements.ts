// BENCH_STATEMENTS=1: loaded first in each bench process (node --import), counts the PostgreSQL statements
// it sends (every pg Client.query: knex's, the prepared ones, BEGIN and COMMIT) and how many of them the
// server had to parse and plan (each one sent as text: a Parse message, or a simple Query; a named statement
// already prepared on its connection sends neither), and answers both on the IPC channel, so a run can print
// statements per CFDI by process (issue #31) and what DB_PREPARED_STATEMENTS=0 costs (issue #41). Bench only.
import pg from 'pg';

let statements = 0;
let parsed = 0;
// Whatever query's overload, the count goes up by one and the call goes through unchanged.
const prototype = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
const query = prototype.query;
prototype.query = function countedQuery(this: unknown, ...args: unknown[]): unknown {
  statements++;
  return Reflect.apply(query, this, args);
};
// The wire: `parse` sends an extended-protocol statement's text, `query` a simple-protocol one (no values).
const wire = pg.Connection.prototype as unknown as Record<'parse' | 'query', (...args: unknown[]) => unknown>;
for (const message of ['parse', 'query'] as const) {
  const send = wire[message];
  wire[message] = function countedText(this: unknown, ...args: unknown[]): unknown {
    parsed++;
    return Reflect.apply(send, this, args);
  };
}

process.on('message', (message) => {
  if (message === 'bench:statements') process.send?.({ statements, parsed });
});
// Listening must not keep a process alive that would exit otherwise.
process.channel?.unref();
