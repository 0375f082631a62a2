/** An invariant checked on a history: its name, whether it held, and the figures behind it. */
export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

export interface ScenarioResult {
  scenario: string;
  /** What ran: faults injected, requests made, answers by status. */
  counts: string;
  checks: Check[];
  /** Recovery and run times. */
  timings: string;
  seconds: number;
}

export function check(name: string, ok: boolean, detail = ''): Check {
  return { name, ok, detail };
}
