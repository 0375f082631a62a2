/**
 * A ZIP archive written entry by entry to a stream (issue #32: the month's XMLs in one download), with no
 * library (none in the dependencies). Each entry arrives whole (an XML or a PDF: kilobytes), is deflated
 * (node:zlib's raw DEFLATE, synchronously: kilobytes take microseconds, and no thread-pool round trip per
 * file; kept stored when that is not smaller), and is written with its CRC-32 and sizes in its local header,
 * so no data descriptor is needed. What the writer keeps is the central directory: about 60 bytes plus the
 * name (as text) per entry (100,000 entries: ~10 MB), never the files' bytes. Past 65,535 entries or
 * 4 GiB of offsets it writes the ZIP64 records (APPNOTE 6.3.10 §4.3.14–4.3.16, §4.5.3), which Info-ZIP's
 * `unzip`, 7-Zip, Windows' and macOS's archivers read. Names are UTF-8 (general purpose bit 11).
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { crc32, deflateRawSync } from 'node:zlib';

const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_CENTRAL = 0x06054b50;
const ZIP64_END_OF_CENTRAL = 0x06064b50;
const ZIP64_LOCATOR = 0x07064b50;
const UTF8_NAMES = 0x0800;
const STORED = 0;
const DEFLATED = 8;
/** Version needed: 2.0 (deflate), 4.5 (ZIP64). Made by: 3 (UNIX) so the permissions below are read. */
const VERSION = 20;
const VERSION_ZIP64 = 45;
const MADE_BY_UNIX = 3 << 8;
/** rw-r--r-- regular file, in the high half of the external attributes. */
const FILE_MODE = (0o100644 << 16) >>> 0;
const MAX_16 = 0xffff;
const MAX_32 = 0xffffffff;

interface CentralEntry {
  /** Kept as text: a small Buffer would be a view that holds a whole pooled slab (64 KB) alive. */
  name: string;
  method: number;
  time: number;
  date: number;
  crc: number;
  compressedSize: number;
  size: number;
  offset: number;
}

export interface ZipWriter {
  /** Adds one file (its whole bytes); waits while the output is full. */
  add(name: string, data: Buffer, modified?: Date): Promise<void>;
  /** Writes the central directory and ends the output; resolves with the archive's size in bytes. */
  finish(): Promise<number>;
}

/** MS-DOS date and time (2-second precision, years 1980–2107) of an instant, on UTC clocks. */
function dosDateTime(at: Date): { time: number; date: number } {
  const year = Math.min(Math.max(at.getUTCFullYear(), 1980), 2107);
  return {
    time: (at.getUTCHours() << 11) | (at.getUTCMinutes() << 5) | Math.floor(at.getUTCSeconds() / 2),
    date: ((year - 1980) << 9) | ((at.getUTCMonth() + 1) << 5) | at.getUTCDate(),
  };
}

export function zipWriter(out: Writable): ZipWriter {
  const entries: CentralEntry[] = [];
  let offset = 0;
  let finished = false;

  async function write(chunk: Buffer): Promise<void> {
    offset += chunk.length;
    if (!out.write(chunk)) await once(out, 'drain');
  }

  return {
    async add(name, data, modified = new Date()) {
      if (finished) throw new Error('zip: add after finish');
      const nameBytes = Buffer.from(name, 'utf8');
      if (nameBytes.length > MAX_16) throw new Error('zip: entry name too long');
      if (data.length >= MAX_32) throw new Error('zip: entry of 4 GiB or more');
      const deflated = deflateRawSync(data);
      const method = deflated.length < data.length ? DEFLATED : STORED;
      const body = method === DEFLATED ? deflated : data;
      const { time, date } = dosDateTime(modified);
      const entry: CentralEntry = { name, method, time, date, crc: crc32(data), compressedSize: body.length, size: data.length, offset };
      const header = Buffer.alloc(30);
      header.writeUInt32LE(LOCAL_HEADER, 0);
      header.writeUInt16LE(VERSION, 4);
      header.writeUInt16LE(UTF8_NAMES, 6);
      header.writeUInt16LE(method, 8);
      header.writeUInt16LE(time, 10);
      header.writeUInt16LE(date, 12);
      header.writeUInt32LE(entry.crc, 14);
      header.writeUInt32LE(entry.compressedSize, 18);
      header.writeUInt32LE(entry.size, 22);
      header.writeUInt16LE(nameBytes.length, 26);
      header.writeUInt16LE(0, 28);
      await write(Buffer.concat([header, nameBytes, body]));
      entries.push(entry);
    },

    async finish() {
      if (finished) throw new Error('zip: finished twice');
      finished = true;
      const centralStart = offset;
      let batch: Buffer[] = [];
      for (const e of entries) {
        const name = Buffer.from(e.name, 'utf8');
        // An offset past 4 GiB goes into a ZIP64 extra field (header 0x0001, the one 8-byte value).
        const far = e.offset >= MAX_32;
        const header = Buffer.alloc(46);
        header.writeUInt32LE(CENTRAL_HEADER, 0);
        header.writeUInt16LE(MADE_BY_UNIX | VERSION_ZIP64, 4);
        header.writeUInt16LE(far ? VERSION_ZIP64 : VERSION, 6);
        header.writeUInt16LE(UTF8_NAMES, 8);
        header.writeUInt16LE(e.method, 10);
        header.writeUInt16LE(e.time, 12);
        header.writeUInt16LE(e.date, 14);
        header.writeUInt32LE(e.crc, 16);
        header.writeUInt32LE(e.compressedSize, 20);
        header.writeUInt32LE(e.size, 24);
        header.writeUInt16LE(name.length, 28);
        header.writeUInt16LE(far ? 12 : 0, 30);
        header.writeUInt16LE(0, 32); // comment
        header.writeUInt16LE(0, 34); // disk
        header.writeUInt16LE(0, 36); // internal attributes
        header.writeUInt32LE(FILE_MODE, 38);
        header.writeUInt32LE(far ? MAX_32 : e.offset, 42);
        batch.push(header, name);
        if (far) {
          const extra = Buffer.alloc(12);
          extra.writeUInt16LE(0x0001, 0);
          extra.writeUInt16LE(8, 2);
          extra.writeBigUInt64LE(BigInt(e.offset), 4);
          batch.push(extra);
        }
        if (batch.length >= 512) {
          await write(Buffer.concat(batch));
          batch = [];
        }
      }
      if (batch.length > 0) await write(Buffer.concat(batch));
      const centralSize = offset - centralStart;
      const zip64 = entries.length >= MAX_16 || centralStart >= MAX_32 || centralSize >= MAX_32;
      if (zip64) {
        const record = Buffer.alloc(56);
        const recordAt = offset;
        record.writeUInt32LE(ZIP64_END_OF_CENTRAL, 0);
        record.writeBigUInt64LE(44n, 4); // the record's size after this field
        record.writeUInt16LE(MADE_BY_UNIX | VERSION_ZIP64, 12);
        record.writeUInt16LE(VERSION_ZIP64, 14);
        record.writeUInt32LE(0, 16);
        record.writeUInt32LE(0, 20);
        record.writeBigUInt64LE(BigInt(entries.length), 24);
        record.writeBigUInt64LE(BigInt(entries.length), 32);
        record.writeBigUInt64LE(BigInt(centralSize), 40);
        record.writeBigUInt64LE(BigInt(centralStart), 48);
        const locator = Buffer.alloc(20);
        locator.writeUInt32LE(ZIP64_LOCATOR, 0);
        locator.writeUInt32LE(0, 4);
        locator.writeBigUInt64LE(BigInt(recordAt), 8);
        locator.writeUInt32LE(1, 16);
        await write(Buffer.concat([record, locator]));
      }
      const end = Buffer.alloc(22);
      end.writeUInt32LE(END_OF_CENTRAL, 0);
      end.writeUInt16LE(0, 4);
      end.writeUInt16LE(0, 6);
      end.writeUInt16LE(zip64 ? MAX_16 : entries.length, 8);
      end.writeUInt16LE(zip64 ? MAX_16 : entries.length, 10);
      end.writeUInt32LE(zip64 ? MAX_32 : centralSize, 12);
      end.writeUInt32LE(zip64 ? MAX_32 : centralStart, 16);
      end.writeUInt16LE(0, 20);
      await write(end);
      entries.length = 0;
      out.end();
      await once(out, 'finish');
      return offset;
    },
  };
}
