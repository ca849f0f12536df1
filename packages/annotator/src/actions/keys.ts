import type { KeyInput } from '../types.js';

/** Ctrl on Windows/Linux, Cmd on macOS. */
export const withMod = (k: KeyInput) => !!(k.ctrl || k.meta);
export const noMods = (k: KeyInput) => !k.ctrl && !k.meta && !k.alt;

/**
 * A letter shortcut. The typed letter decides on Latin layouts (AZERTY's A is A); on other layouts (Russian,
 * Chinese IME) the physical key does, so V still means select.
 */
export function isLetter(k: KeyInput, letter: string): boolean {
  return /^[a-z]$/i.test(k.key) ? k.key.toLowerCase() === letter : k.code === `Key${letter.toUpperCase()}`;
}

/** The digit 1–9 pressed, typed or by physical key (AZERTY types "&" on the 1 key without Shift). */
export function digitOf(k: KeyInput): number | null {
  if (/^[1-9]$/.test(k.key)) return Number(k.key);
  const m = /^(?:Digit|Numpad)([1-9])$/.exec(k.code);
  return m ? Number(m[1]) : null;
}
