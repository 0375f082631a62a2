import { userInfo } from 'node:os';
import type { Logger } from '../shared/platform/logger.js';
import { actOnAttention, attentionKind, ATTENTION_KINDS, readNeedsAttention, type AttentionAction, type AttentionDeps } from '../shared/status/needs-attention.js';

/** How many of each kind `attention list` shows. */
const LIST_LIMIT = 1000;

export class AttentionUsageError extends Error {}

/** Who acts, for the audit line: the operating-system user running the CLI (or OPERATOR, when set, e.g. by a runbook tool). */
export function operatorName(env: NodeJS.ProcessEnv = process.env): string {
  if (env.OPERATOR) return env.OPERATOR;
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}

/**
 * `attention list [--json]`, `attention retry <kind> <id>`, `attention give-up <kind> <id>` (issue #38): what the
 * service stopped retrying (shared/status/needs-attention.ts), and the operator's two actions on one of them, each
 * audited in the log. Returns the exit code: 0 done, 1 when the item does not need attention (nothing changed).
 */
export async function attentionVerb(
  deps: AttentionDeps,
  log: Pick<Logger, 'info' | 'warn'>,
  args: string[],
  options: { json: boolean; operator: string; all?: boolean },
  out: (text: string) => void,
): Promise<number> {
  const [sub, kind, id, ...rest] = args;
  if (sub === 'list' && kind === undefined) {
    const summary = await readNeedsAttention(deps.db, LIST_LIMIT);
    if (options.json) {
      out(`${JSON.stringify(summary.map((k) => ({ ...k, items: k.items.map((i) => ({ ...i, since: i.since.toISOString() })) })))}\n`);
      return 0;
    }
    for (const k of summary) {
      out(`${k.kind}: ${k.count} (${k.what})\n`);
      for (const i of k.items) out(`  ${i.id}  ${i.merchantId ?? (i.accountId ? `account ${i.accountId}` : '-')}  since ${i.since.toISOString()}  ${i.cause}\n`);
    }
    return 0;
  }
  if (sub === 'retry' && kind !== undefined && id === undefined && options.all === true) return retryAll(deps, log, kind, options, out);
  if ((sub === 'retry' || sub === 'give-up') && kind !== undefined && id !== undefined && rest.length === 0) {
    const { outcome, reason } = await actOnAttention(deps, log, { action: sub as AttentionAction, kind, id, operator: options.operator });
    if (outcome === 'unknown-kind') throw new AttentionUsageError(`unknown kind "${kind}": one of ${ATTENTION_KINDS.map((k) => k.kind).join(', ')}`);
    const line =
      outcome === 'done'
        ? `${kind} ${id}: ${sub === 'retry' ? 'queued again' : 'given up'}`
        : outcome === 'refused'
          ? `${kind} ${id}: not now: ${reason ?? ''}`
          : `${kind} ${id} does not need attention (unknown, already acted on, or it succeeded meanwhile): nothing changed`;
    out(options.json ? `${JSON.stringify({ kind, id, action: sub, outcome, ...(reason ? { reason } : {}) })}\n` : `${line}\n`);
    return outcome === 'done' ? 0 : 1;
  }
  throw new AttentionUsageError('usage: attention list [--json] | attention retry <kind> <id|--all> | attention give-up <kind> <id>');
}

/**
 * `attention retry <kind> --all`: after an outage (the PAC down for a day, SMTP, a receiver), every item of
 * the kind, each its own audited action. Those listed when it starts: a retry that fails again is not taken twice.
 */
async function retryAll(
  deps: AttentionDeps,
  log: Pick<Logger, 'info' | 'warn'>,
  kindName: string,
  options: { json: boolean; operator: string },
  out: (text: string) => void,
): Promise<number> {
  const kind = attentionKind(kindName);
  if (!kind) throw new AttentionUsageError(`unknown kind "${kindName}": one of ${ATTENTION_KINDS.map((k) => k.kind).join(', ')}`);
  const items = await kind.list(deps.db, await kind.count(deps.db));
  let retried = 0;
  for (const item of items) if ((await actOnAttention(deps, log, { action: 'retry', kind: kindName, id: item.id, operator: options.operator })).outcome === 'done') retried++;
  out(options.json ? `${JSON.stringify({ kind: kindName, action: 'retry', retried, of: items.length })}\n` : `${kindName}: ${retried} of ${items.length} queued again\n`);
  return 0;
}
