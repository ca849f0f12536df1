import { describe, expect, it } from "vitest";
import { letterbox, roundHalfEven } from "../src/letterbox.js";

describe("letterbox", () => {
  it("rounds like Python", () => {
    expect([0.5, 1.5, 2.5, 42.5, 2.4, 2.6].map(roundHalfEven)).toEqual([0, 2, 2, 42, 2, 3]);
  });

  it("pads a wide image centred with 114 and keeps pixels when no resize is needed", () => {
    const rgb = new Uint8Array(64 * 32 * 3).fill(255);
    const lb = letterbox(rgb, 64, 32, 64, 64);
    expect(lb.ratio).toBe(1);
    expect([lb.padX, lb.padY]).toEqual([0, 16]);
    expect(lb.tensor[0]).toBeCloseTo(114 / 255);
    expect(lb.tensor[16 * 64]).toBe(1);
  });
});
