import { describe, expect, it } from "vitest";
import { classInstances, resizePlane } from "../src/instances.js";

/** A width × height mask from rows of '#' (in) and '.' (out). */
function mask(rows: string[]): { m: Uint8Array; w: number; h: number } {
  const w = rows[0]!.length;
  return { m: Uint8Array.from(rows.join("").split(""), (c) => (c === "#" ? 1 : 0)), w, h: rows.length };
}

const shoelace = (p: [number, number][]) => Math.abs(p.reduce((s, [x, y], i) => s + x * p[(i + 1) % p.length]![1] - p[(i + 1) % p.length]![0] * y, 0)) / 2;

describe("segment instances", () => {
  it("outlines a rectangle by its 4 corner pixel centres and an L by its 6", () => {
    const { m, w, h } = mask(["......", ".####.", ".####.", ".####.", "......"]);
    const [r] = classInstances(m, new Float32Array(w * h).fill(0.5), w, h, 0, "a", 1);
    expect(r).toMatchObject({ bbox: [1, 1, 4, 3], area: 12, score: 0.5 });
    expect(new Set(r!.polygon.map((p) => p.join(",")))).toEqual(new Set(["1.5,1.5", "4.5,1.5", "4.5,3.5", "1.5,3.5"]));

    // The same corners, in the same order, as cv2.findContours(RETR_EXTERNAL, CHAIN_APPROX_SIMPLE) gives.
    const cases: [string[], number[][]][] = [
      [["#...", "#...", "####"], [[0, 0], [0, 2], [3, 2], [1, 2], [0, 1]]],
      [["##..", "##..", "####"], [[0, 0], [0, 2], [3, 2], [2, 2], [1, 1], [1, 0]]],
      [[".##.", "####", ".##."], [[1, 0], [0, 1], [1, 2], [2, 2], [3, 1], [2, 0]]],
      [["#.#", "###", "#.#"], [[0, 0], [0, 2], [1, 1], [2, 2], [2, 0], [1, 1]]],
    ];
    for (const [rows, cv2] of cases) {
      const l = mask(rows);
      const [o] = classInstances(l.m, new Float32Array(l.w * l.h), l.w, l.h, 0, "a", 1);
      expect(o!.polygon, rows.join("/")).toEqual(cv2.map(([x, y]) => [x! + 0.5, y! + 0.5]));
    }
    expect(shoelace(r!.polygon)).toBe(6); // through the boundary pixel centres: 3 × 2
  });

  it("splits 8-connected components, joins diagonal neighbours and drops small ones", () => {
    const { m, w, h } = mask(["##...", "##...", "..#..", "....#"]);
    expect(classInstances(m, new Float32Array(w * h).fill(1), w, h, 0, "a", 1)).toHaveLength(2);
    const found = classInstances(m, new Float32Array(w * h).fill(1), w, h, 0, "a", 2);
    expect(found.map((o) => o.area)).toEqual([5]);
  });

  it("resizes like OpenCV's INTER_LINEAR (half-pixel centres, clamped edges)", () => {
    // 2x1 plane [0, 1] to 4x1: centres at -0.25, 0.25, 0.75, 1.25 of the source → 0, 0.25, 0.75, 1
    expect([...resizePlane(Float32Array.from([0, 1]), 2, 0, 0, 2, 1, 4, 1)]).toEqual([0, 0.25, 0.75, 1]);
  });
});
