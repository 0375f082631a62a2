import type { PacCredentialsAlarm } from '../../shared/adapters/pac/pac-credentials-alarm.js';

/**
 * The status page's line for the PAC refusing the service's credentials (docs/operations.md, Runbook): shown
 * only while the alarm is raised, above everything else, since no CFDI is stamped or cancelled meanwhile.
 */
export function pacCredentialsSection(alarm: PacCredentialsAlarm | undefined, escape: (text: string) => string): string {
  if (!alarm) return '';
  const cause = alarm.problem === 'authentication refused' ? 'refuses PAC_USER and PAC_PASSWORD' : `refuses the token (401 on ${alarm.operation})`;
  return `<section aria-labelledby="pac-credentials" data-alarm="pac-credentials-rejected"><h2 id="pac-credentials">PAC credentials rejected</h2>
<p class="alert">The PAC ${escape(cause)} since ${escape(alarm.since.slice(0, 19).replace('T', ' '))} UTC: stamping and cancelling are paused, nothing is lost; they resume by themselves once a call succeeds. ${escape(alarm.message)}</p>
<p class="note">Fix <code>PAC_TOKEN</code> (or <code>PAC_USER</code> and <code>PAC_PASSWORD</code>) and restart the workers: docs/operations.md, Runbook.</p></section>`;
}
