import type { ScenarioResult } from './scenario-result.js';

/** One row per scenario: what ran, each invariant with ✓/✗, recovery timings, wall time. */
export function formatReport(results: ScenarioResult[]): string {
  const lines: string[] = [];
  lines.push('| scenario | counts | invariants | timings | s |');
  lines.push('|---|---|---|---|---:|');
  for (const r of results) {
    const checks = r.checks.map((c) => `${c.ok ? '✓' : '✗'} ${c.name}${c.detail ? ` (${c.detail})` : ''}`).join('; ');
    lines.push(`| ${r.scenario} | ${r.counts} | ${checks} | ${r.timings} | ${r.seconds.toFixed(0)} |`);
  }
  return `${lines.join('\n')}\n`;
}

export function failedChecks(results: ScenarioResult[]): string[] {
  return results.flatMap((r) => r.checks.filter((c) => !c.ok).map((c) => `${r.scenario}: ${c.name} (${c.detail})`));
}
