// The seeded draw bench/agent.mjs takes its images and crops with: the same mulberry32 shuffle as
// bench/detect-few.mjs, so every run and every machine draws the same sample.

/** A copy of `items` shuffled (Fisher–Yates) by a mulberry32 stream from `seed`. */
export function shuffled(items, seed) {
  let s = seed >>> 0;
  const random = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
