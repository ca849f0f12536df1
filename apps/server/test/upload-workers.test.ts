import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJson, parseXml, sampleBmp, WorkerTaskError } from '../src/services/gallery/workers.js';

/** The worker pool that keeps BMP decoding and annotation parsing off the event loop (issue 30, item 4). */
describe('upload worker pool', () => {
  it('parses JSON on the worker; long number lists come back as Float64Arrays, the rest as they were', async () => {
    const r = await parseJson(Buffer.from(JSON.stringify({ seg: [Array.from({ length: 20 }, (_, i) => i / 2)], bbox: [1, 2, 3, 4], name: 'x' })), 32);
    expect('doc' in r).toBe(true);
    const doc = (r as { doc: { seg: unknown[]; bbox: unknown; name: string } }).doc;
    expect(doc.seg[0]).toBeInstanceOf(Float64Array);
    expect([...(doc.seg[0] as Float64Array)].slice(0, 3)).toEqual([0, 0.5, 1]);
    expect(doc.bbox).toEqual([1, 2, 3, 4]);
    expect(doc.name).toBe('x');
  });

  it('refuses nesting past the limit and text that is not JSON or XML, without throwing', async () => {
    expect(await parseJson(Buffer.from(`${'['.repeat(40)}${']'.repeat(40)}`), 32)).toEqual({ error: 'deep' });
    expect(await parseJson(Buffer.from('{"a": '), 32)).toEqual({ error: 'invalid' });
    expect(await parseXml(Buffer.from(`<annotation>${'<a>'.repeat(40)}${'</a>'.repeat(40)}</annotation>`), 32)).toEqual({ error: 'deep' });
    expect(await parseXml(Buffer.from('<annotation><object><name>x</name></object></annotation>'), 32)).toEqual({ doc: { annotation: { object: [{ name: 'x' }] } } });
  });

  it('rejects a BMP task that cannot be read, and keeps serving the next tasks', async () => {
    const missing = path.join(os.tmpdir(), `loupe-missing-${process.pid}.bmp`);
    const task = { file: missing, width: 4, height: 4, bpp: 24, topDown: false, offset: 54, stride: 12, palette: new Uint8Array(0), target: 512 };
    await expect(sampleBmp(task)).rejects.toBeInstanceOf(WorkerTaskError);
    // A real 4x4 24-bit BMP body: rows of blue pixels, read back as RGB.
    const file = path.join(os.tmpdir(), `loupe-ok-${process.pid}.bmp`);
    const body = Buffer.alloc(54 + 12 * 4);
    for (let p = 54; p < body.length; p += 3) body[p] = 255;
    fs.writeFileSync(file, body);
    try {
      const out = await sampleBmp({ ...task, file });
      expect([out.width, out.height]).toEqual([4, 4]);
      expect([...out.rgb.subarray(0, 3)]).toEqual([0, 0, 255]);
    } finally {
      fs.rmSync(file, { force: true });
    }
  });
});
