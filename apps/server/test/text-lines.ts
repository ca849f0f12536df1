import sharp from 'sharp';
import type { Geometry } from '@loupe/contracts';

/**
 * Text lines the OCR tests draw themselves (the server's and the browser's): four digits in a 5×7 pixel font,
 * scaled ×2, dark on a noisy light plate, at a place that depends on the image's number. Plain pixels, no
 * font files, so the images are the same on every machine.
 */

export const W = 96;
export const H = 64;

/** 5×7 glyphs of the digits, a row per string, '#' = ink. */
const GLYPHS: Record<string, string[]> = {
  '0': ['.###.', '#...#', '#..##', '#.#.#', '##..#', '#...#', '.###.'],
  '1': ['..#..', '.##..', '..#..', '..#..', '..#..', '..#..', '.###.'],
  '2': ['.###.', '#...#', '....#', '...#.', '..#..', '.#...', '#####'],
  '3': ['####.', '....#', '....#', '.###.', '....#', '....#', '####.'],
  '4': ['...#.', '..##.', '.#.#.', '#..#.', '#####', '...#.', '...#.'],
  '5': ['#####', '#....', '####.', '....#', '....#', '#...#', '.###.'],
  '6': ['.###.', '#....', '#....', '####.', '#...#', '#...#', '.###.'],
  '7': ['#####', '....#', '...#.', '..#..', '.#...', '.#...', '.#...'],
  '8': ['.###.', '#...#', '#...#', '.###.', '#...#', '#...#', '.###.'],
  '9': ['.###.', '#...#', '#...#', '.####', '....#', '....#', '.###.'],
};
const SCALE = 2;
const CHAR_W = 6 * SCALE;

/** Image i: a line of 4 digits somewhere on a noisy grey plate; its text and rotated box (angle 0). */
export function lineOf(i: number): { text: string; box: Extract<Geometry, { kind: 'rbox' }> } {
  const text = String((i * 7919 + 1234) % 10000).padStart(4, '0');
  const w = text.length * CHAR_W + 4;
  const h = 7 * SCALE + 6;
  const x = 4 + ((i * 13) % (W - w - 8));
  const y = 4 + ((i * 17) % (H - h - 8));
  return { text, box: { kind: 'rbox', cx: x + w / 2, cy: y + h / 2, w, h, angle: 0, text } };
}

export async function lineImage(i: number): Promise<Buffer> {
  const { text, box } = lineOf(i);
  const px = Buffer.alloc(W * H * 3);
  let s = (i + 1) * 2654435761 + 11;
  for (let p = 0; p < px.length; p++) {
    s = (s * 1103515245 + 12345) >>> 0;
    px[p] = 150 + ((s >>> 16) % 20);
  }
  const left = box.cx - box.w / 2 + 2;
  const top = box.cy - box.h / 2 + 3;
  [...text].forEach((ch, k) => {
    GLYPHS[ch]!.forEach((row, gy) => {
      [...row].forEach((cell, gx) => {
        if (cell !== '#') return;
        for (let dy = 0; dy < SCALE; dy++) {
          for (let dx = 0; dx < SCALE; dx++) px.fill(20, ((top + gy * SCALE + dy) * W + left + k * CHAR_W + gx * SCALE + dx) * 3, ((top + gy * SCALE + dy) * W + left + k * CHAR_W + gx * SCALE + dx) * 3 + 3);
        }
      });
    });
  });
  return sharp(px, { raw: { width: W, height: H, channels: 3 } }).png().toBuffer();
}

