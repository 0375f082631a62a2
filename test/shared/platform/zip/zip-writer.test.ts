import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { zipWriter } from '../../../../shared/platform/zip/zip-writer.js';

const run = promisify(execFile);

/** Info-ZIP's unzip and zipinfo (Debian's `unzip` package) are the referee. */
describe('zipWriter (issue #32)', function () {
  this.timeout(120_000);
  let dir: string;
  before(async () => (dir = await mkdtemp(join(tmpdir(), 'zip-writer-'))));
  after(() => rm(dir, { recursive: true, force: true }));

  it('writes an archive unzip tests clean, with each file byte-identical, deflated or stored, and UTF-8 names', async () => {
    const path = join(dir, 'a.zip');
    const zip = zipWriter(createWriteStream(path));
    const xml = Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>\n<cfdi:Comprobante Total="116.00">${'<cfdi:Concepto/>'.repeat(200)}</cfdi:Comprobante>`);
    const random = Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7919 + 13) % 251));
    const files: [string, Buffer][] = [
      ['EKU9003173C9_A12_6F1B2C3D-0000-4000-8000-000000000001.xml', xml],
      ['EKU9003173C9_A12_6F1B2C3D-0000-4000-8000-000000000001.pdf', random],
      ['ÑAÑ800101AB1_13_empty.xml', Buffer.alloc(0)],
    ];
    for (const [name, data] of files) await zip.add(name, data, new Date('2026-11-27T12:34:56Z'));
    const size = await zip.finish();
    expect((await stat(path)).size).to.equal(size);
    const { stdout } = await run('unzip', ['-t', path]);
    expect(stdout).to.contain('No errors detected');
    const listing = (await run('zipinfo', ['-1', path])).stdout.trim().split('\n');
    expect(listing).to.deep.equal(files.map(([name]) => name));
    const verbose = (await run('zipinfo', ['-l', path])).stdout;
    expect(verbose).to.match(/defN/).and.to.match(/stor/);
    for (const [name, data] of files) {
      const extracted = await run('unzip', ['-p', path, name], { encoding: 'buffer', maxBuffer: 1 << 20 });
      expect(Buffer.compare(extracted.stdout, data), name).to.equal(0);
    }
  });

  it('writes the ZIP64 end records past 65,535 entries, and unzip reads every one, holding no bytes of them', async () => {
    const path = join(dir, 'many.zip');
    const zip = zipWriter(createWriteStream(path));
    const count = 70_000;
    const before = process.memoryUsage().arrayBuffers;
    let peak = before;
    for (let i = 0; i < count; i++) {
      await zip.add(`f${i}.xml`, Buffer.from(`<a n="${i}"/>`));
      if (i % 1000 === 0) peak = Math.max(peak, process.memoryUsage().arrayBuffers);
    }
    // What the writer keeps is the central directory as text: Buffers it kept would each pin a pooled slab
    // (64 KB), which once took 1.5 GB here (2.2 GB for 100,000 entries). What remains is garbage not yet
    // collected (each deflate's 64 KB output buffer): about 115 MB.
    expect(peak - before).to.be.below(400 * 1024 * 1024);
    await zip.finish();
    const { stdout } = await run('unzip', ['-t', '-q', path], { maxBuffer: 64 << 20 });
    expect(stdout).to.contain('No errors detected');
    const names = (await run('zipinfo', ['-1', path], { maxBuffer: 64 << 20 })).stdout.trim().split('\n');
    expect(names).to.have.length(count);
    expect(names.at(-1)).to.equal(`f${count - 1}.xml`);
    const last = await run('unzip', ['-p', path, `f${count - 1}.xml`]);
    expect(last.stdout).to.equal(`<a n="${count - 1}"/>`);
    expect((await readFile(path)).subarray(-22).readUInt16LE(8)).to.equal(0xffff);
  });
});
