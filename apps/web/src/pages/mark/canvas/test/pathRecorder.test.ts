import { describe, expect, it } from 'vitest';
import { buildColorPaths } from '../pathCache';
import { PathRecorder, decodePaths, encodePaths } from '../pathRecorder';

/** Replays a recorder's numbers as readable ops (jsdom has no Path2D to build). */
function ops(p: PathRecorder): string[] {
  const d = [...p.data()];
  const out: string[] = [];
  for (let i = 0; i < d.length; ) {
    const op = d[i]!;
    if (op === 2) out.push('Z');
    else if (op === 3) out.push(`R${d.slice(i + 1, i + 5).join(',')}`);
    else out.push(`${op === 0 ? 'M' : 'L'}${d[i + 1]},${d[i + 2]}`);
    i += op === 2 ? 1 : op === 3 ? 5 : 3;
  }
  return out;
}

describe('path recorder', () => {
  it('records moves, lines, closes and rectangles, growing past its first buffer', () => {
    const p = new PathRecorder();
    p.rect(1, 2, 3, 4);
    for (let i = 0; i < 200; i++) (i === 0 ? p.moveTo : p.lineTo).call(p, i, i + 0.5);
    p.closePath();
    const recorded = ops(p);
    expect(recorded[0]).toBe('R1,2,3,4');
    expect(recorded[1]).toBe('M0,0.5');
    expect(recorded[200]).toBe('L199,199.5');
    expect(recorded.at(-1)).toBe('Z');
  });

  it('survives the trip to the worker as copies, colour by colour', () => {
    const paths = buildColorPaths(
      [
        { labelId: 1, geometry: { kind: 'box', x1: 0, y1: 0, x2: 10, y2: 5 } },
        { labelId: 2, geometry: { kind: 'polygon', points: [[0, 0], [4, 0], [0, 4]] } },
      ],
      new Map([[1, '#f00'], [2, '#0f0']]),
      () => new PathRecorder(),
    );
    const encoded = encodePaths(paths);
    expect(encoded.colors).toEqual(['#f00', '#0f0']);
    // Copies: transferring them to the worker leaves the page's paths intact.
    expect(encoded.data[0]!.buffer).not.toBe(paths.byColor.get('#f00')!.data().buffer);
    const back = decodePaths(encoded);
    expect(ops(back.byColor.get('#0f0')!)).toEqual(['M0,0', 'L4,0', 'L0,4', 'Z']);
    expect(ops(back.byColor.get('#f00')!)).toEqual(['R0,0,10,5']);
  });
});
