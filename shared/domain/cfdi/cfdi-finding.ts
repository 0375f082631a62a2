/** One rule a built CFDI breaks, as the checks before sealing report it. */
export interface CfdiFinding {
  /** Our stable code. */
  code: string;
  /** The SAT validation (PAC error code) the rule mirrors. */
  satCode: string;
  path: string;
  message: string;
}
