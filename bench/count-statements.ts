// BENCH_STATEMENTS=1: loaded first in each bench process (node --import), counts the PostgreSQL statements
// it sends (every pg Client.query: knex's, the prepared ones, BEGIN and COMMIT) and answers the count on
// the IPC channel, so a run can print statements per CFDI by process (issue #31). Bench only.
import pg from 'pg';

let statements = 0;
// Whatever query's overload, the count goes up by one and the call goes through unchanged.
const prototype = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
const query = prototype.query;
prototype.query = function countedQuery(this: unknown, ...args: unknown[]): unknown {
  statements++;
  return Reflect.apply(query, this, args);
};

process.on('message', (message) => {
  if (message === 'bench:statements') process.send?.({ statements });
});
// Listening must not keep a process alive that would exit otherwise.
process.channel?.unref();
