import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { formatDistance, relabel, textFormat } from "../src/index.js";

// The same cases as the engine's engine/tests/test_ocr_formats.py (and through it the Python SDK's).
interface Case { why: string; text: string; cls: number; formats: string[][]; want: number }
const cases = JSON.parse(readFileSync(join(import.meta.dirname, "ocr-formats.json"), "utf8")) as Case[];

describe("a text line's class from what it says", () => {
  it.each(cases)("$why", (c) => {
    expect(relabel(c.text, c.cls, c.formats)).toBe(c.want);
  });

  it("writes digits as 9 and counts a letter for a letter as half an edit", () => {
    expect(textFormat("LOT:26-0411V")).toBe("LOT:99-9999V");
    expect(textFormat("Ä12é")).toBe("Ä99é");
    expect(formatDistance("AB", "AC")).toBe(0.5);
    expect(formatDistance("A9", "99")).toBe(1);
    expect(formatDistance("", "LOT")).toBe(3);
    expect(formatDistance("𝔸9", "A9")).toBe(0.5); // one code point, not two UTF-16 units
  });
});
