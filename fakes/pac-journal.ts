import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { Decimal } from 'decimal.js';

/** What SAT knows of a stamped CFDI: what its cancellation rule and status service read. */
export interface StampedCfdi {
  issuerRfc: string;
  receptorRfc: string;
  total: Decimal;
  exchangeRate: Decimal;
  type: string;
  stampedAt: Date;
  state: 'Vigente' | 'Cancelado';
  /** '' until a cancellation is asked. */
  cancellationStatus: string;
  /** EsCancelable as judged when the cancellation was asked; SAT keeps reporting it. */
  cancellable?: string;
}

/**
 * What the fake PAC has stamped, kept as a real PAC keeps it: across restarts, so an invoice stamped before
 * a restart of `npm start` can still be cancelled and its SAT status read. An append-only JSON-lines file
 * (one line per stamp, one per change of a CFDI's state; the last line of a UUID wins), replayed at start.
 * Without a file (tests), memory only.
 */
export interface PacJournal {
  /** Stamp answers by sealed document (a document sent again gets its stamp back). */
  stamped: Map<string, Record<string, string>>;
  /** What SAT knows of each CFDI, by UUID. */
  cfdis: Map<string, StampedCfdi>;
  /** Records a new stamp and its CFDI. */
  recordStamp(key: string, data: Record<string, string>, uuid: string): void;
  /** Records a CFDI's changed state (cancellation, the receptor's answer). */
  recordCfdi(uuid: string): void;
}

type Line =
  | { key: string; data: Record<string, string> }
  | { uuid: string; cfdi: Omit<StampedCfdi, 'total' | 'exchangeRate' | 'stampedAt'> & { total: string; exchangeRate: string; stampedAt: string } };

export function openPacJournal(file?: string): PacJournal {
  const stamped = new Map<string, Record<string, string>>();
  const cfdis = new Map<string, StampedCfdi>();
  if (file && existsSync(file)) {
    for (const text of readFileSync(file, 'utf8').split('\n')) {
      if (!text) continue;
      let line: Line;
      try {
        line = JSON.parse(text) as Line;
      } catch {
        continue; // a line cut by a crash mid-write: the stamp it recorded was never answered
      }
      if ('key' in line) stamped.set(line.key, line.data);
      else cfdis.set(line.uuid, { ...line.cfdi, total: new Decimal(line.cfdi.total), exchangeRate: new Decimal(line.cfdi.exchangeRate), stampedAt: new Date(line.cfdi.stampedAt) });
    }
  }
  if (file) mkdirSync(dirname(file), { recursive: true });
  const append = (line: Line) => {
    if (file) appendFileSync(file, `${JSON.stringify(line)}\n`);
  };
  const cfdiLine = (uuid: string): Line => {
    const cfdi = cfdis.get(uuid)!;
    return { uuid, cfdi: { ...cfdi, total: cfdi.total.toString(), exchangeRate: cfdi.exchangeRate.toString(), stampedAt: cfdi.stampedAt.toISOString() } };
  };
  return {
    stamped,
    cfdis,
    recordStamp(key, data, uuid) {
      append({ key, data });
      append(cfdiLine(uuid));
    },
    recordCfdi(uuid) {
      append(cfdiLine(uuid));
    },
  };
}
