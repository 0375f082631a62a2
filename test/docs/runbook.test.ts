import { readFileSync } from 'node:fs';
import { expect } from 'chai';

const read = (name: string) => readFileSync(new URL(`../../docs/${name}`, import.meta.url), 'utf8');

describe('issue #38: docs/operations.md has a runbook entry for every alarm', () => {
  it('every alert rule of the Prometheus rules is named by a heading of the Runbook', () => {
    const operations = read('operations.md');
    const alerts = [...operations.matchAll(/^\s+- alert: (\w+)$/gm)].map((m) => m[1]!);
    expect(alerts).to.include.members(['PacCredentialsRejected', 'NeedsAttention', 'StampWithheld']);
    const runbook = operations.slice(operations.indexOf('\n## Runbook\n'));
    expect(runbook.length, 'a Runbook section').to.be.above(100);
    const headings = [...runbook.matchAll(/^### (.+)$/gm)].map((m) => m[1]!);
    expect(alerts.filter((alert) => !headings.some((h) => h.includes(alert)))).to.deep.equal([]);
  });

  it("the PAC's two kinds of credentials are documented where an operator sets them", () => {
    for (const name of ['PAC_TOKEN', 'PAC_USER', 'PAC_PASSWORD']) {
      expect(read('configuration.md'), name).to.include(`\`${name}\``);
      expect(read('deployment.md'), name).to.include(`\`${name}\``);
    }
  });
});
