/**
 * The engine's pre-processing, repeated exactly (engine/loupe_engine/data/augment.py `letterbox`):
 * scale r = min(H/h, W/w), size = round-half-even(w*r) x round-half-even(h*r), bilinear resize with
 * half-pixel centres (as OpenCV INTER_LINEAR), centred padding of 114, RGB planes scaled to 0..1.
 */
export interface Letterbox {
  tensor: Float32Array;
  ratio: number;
  padX: number;
  padY: number;
}

/** Python's round(): ties go to the even neighbour. */
export function roundHalfEven(x: number): number {
  const f = Math.floor(x);
  const d = x - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

function resizeBilinear(src: Uint8Array, w: number, h: number, nw: number, nh: number): Uint8Array {
  if (nw === w && nh === h) return src;
  const out = new Uint8Array(nw * nh * 3);
  const sx = w / nw;
  const sy = h / nh;
  for (let y = 0; y < nh; y++) {
    let fy = (y + 0.5) * sy - 0.5;
    if (fy < 0) fy = 0;
    const y0 = Math.min(Math.floor(fy), h - 1);
    const y1 = Math.min(y0 + 1, h - 1);
    const wy = fy - y0;
    for (let x = 0; x < nw; x++) {
      let fx = (x + 0.5) * sx - 0.5;
      if (fx < 0) fx = 0;
      const x0 = Math.min(Math.floor(fx), w - 1);
      const x1 = Math.min(x0 + 1, w - 1);
      const wx = fx - x0;
      for (let c = 0; c < 3; c++) {
        const a = src[(y0 * w + x0) * 3 + c]! * (1 - wx) + src[(y0 * w + x1) * 3 + c]! * wx;
        const b = src[(y1 * w + x0) * 3 + c]! * (1 - wx) + src[(y1 * w + x1) * 3 + c]! * wx;
        out[(y * nw + x) * 3 + c] = Math.round(a * (1 - wy) + b * wy);
      }
    }
  }
  return out;
}

/** rgb: interleaved RGB bytes of a width x height image. Returns a [1,3,inH,inW] tensor. */
export function letterbox(rgb: Uint8Array, width: number, height: number, inW: number, inH: number): Letterbox {
  if (rgb.length !== width * height * 3) throw new Error(`expected ${width * height * 3} RGB bytes, got ${rgb.length}`);
  const ratio = Math.min(inH / height, inW / width);
  const nw = roundHalfEven(width * ratio);
  const nh = roundHalfEven(height * ratio);
  const img = resizeBilinear(rgb, width, height, nw, nh);
  const padX = Math.round((inW - nw) / 2 - 0.1) + 0; // + 0 turns -0 into 0
  const padY = Math.round((inH - nh) / 2 - 0.1) + 0;
  const plane = inW * inH;
  const tensor = new Float32Array(3 * plane).fill(114 / 255);
  for (let y = 0; y < nh; y++) {
    for (let x = 0; x < nw; x++) {
      const s = (y * nw + x) * 3;
      const d = (y + padY) * inW + x + padX;
      tensor[d] = img[s]! / 255;
      tensor[plane + d] = img[s + 1]! / 255;
      tensor[2 * plane + d] = img[s + 2]! / 255;
    }
  }
  return { tensor, ratio, padX, padY };
}
