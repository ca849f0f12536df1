import { describe, expect, it } from 'vitest';
import { forbiddenNameChar } from './names.js';

describe('forbiddenNameChar', () => {
  it('accepts ordinary names in every script, with spaces, hyphens and apostrophes', () => {
    for (const name of ['Ada Lovelace', "O'Brien-Smith", 'Zoë Ørsted', '李小龙', 'Фёдор', 'عبد الله', 'שלום', 'Größe 42 (v2)', 'a\u00A0b']) {
      expect(forbiddenNameChar(name), name).toBeNull();
    }
  });

  it('names the first control, zero-width or bidirectional character it finds', () => {
    const cases: [string, string][] = [
      ['a\u0000b', 'U+0000'],
      ['tab\there', 'U+0009'],
      ['line\nbreak', 'U+000A'],
      ['del\u007F', 'U+007F'],
      ['c1\u0085', 'U+0085'],
      ['c1\u009F', 'U+009F'],
      ['zero\u200Bwidth', 'U+200B'],
      ['joiner\u200D', 'U+200D'],
      ['rlm\u200F', 'U+200F'],
      ['invoice\u202Etxt.exe', 'U+202E'],
      ['lre\u202A', 'U+202A'],
      ['isolate\u2066x\u2069', 'U+2066'],
      ['pdi\u2069', 'U+2069'],
      ['\uFEFFbom', 'U+FEFF'],
    ];
    for (const [name, char] of cases) expect(forbiddenNameChar(name), JSON.stringify(name)).toBe(char);
  });

  it('leaves the characters just outside the refused ranges alone', () => {
    for (const c of ['\u00A0', '\u200A', '\u2010', '\u2029', '\u202F', '\u2065', '\u206A', '\uFEFE', '\uFF01']) {
      expect(forbiddenNameChar(`x${c}y`), c.codePointAt(0)!.toString(16)).toBeNull();
    }
  });
});
