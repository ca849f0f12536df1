import { Limits, forbiddenNameChar } from '@loupe/contracts';
import { fail, required } from '../errors.js';

/** The SPEC §5 field rules. Each failure throws its own catalogue error naming the field. */

const emailRe = new RegExp(Limits.emailPattern);
const phoneRe = new RegExp(Limits.phonePattern);
const landlineRe = new RegExp(Limits.landlinePattern);
const passwordRe = new RegExp(Limits.passwordPattern);
const codeRe = new RegExp(Limits.verificationCodePattern);

/**
 * A name someone gives (a person's, a company's, a model's, a label's): control, zero-width and
 * bidirectional-override characters are refused (contracts' names.ts says which and why).
 */
export function checkName(field: string, value: string): string {
  const char = forbiddenNameChar(value);
  if (char) fail('nameCharacters', { field, char });
  return value;
}

/** Trimmed name; missing or blank → fieldRequired. */
export function requireText(field: string, value: string | undefined | null): string {
  const v = (value ?? '').trim();
  if (!v) required(field);
  if (v.length > Limits.textMax) fail('fieldTooLong', { field, max: Limits.textMax });
  return checkName(field, v);
}

/** Trimmed name, may be blank; still bounded. */
export function optionalText(field: string, value: string | undefined | null): string {
  const v = (value ?? '').trim();
  if (v.length > Limits.textMax) fail('fieldTooLong', { field, max: Limits.textMax });
  return checkName(field, v);
}

export function normalizeEmail(value: string): string {
  return value.trim().toLowerCase();
}

export function looksLikeEmail(value: string): boolean {
  return emailRe.test(value) && value.length <= 320;
}

export function looksLikePhone(value: string): boolean {
  return phoneRe.test(value.trim());
}

export function checkEmail(field: string, value: string | undefined | null): string {
  const v = normalizeEmail(value ?? '');
  if (!v) required(field);
  if (!looksLikeEmail(v)) fail('emailFormat', { field });
  return v;
}

/** Digits with an optional leading +: "+49 170-123 4567" and "+491701234567" are one number. */
export function normalizePhone(value: string): string {
  const v = value.trim();
  return (v.startsWith('+') ? '+' : '') + v.replace(/\D/g, '');
}

export function checkPhone(field: string, value: string | undefined | null): string {
  const v = (value ?? '').trim();
  if (!v) required(field);
  if (!looksLikePhone(v)) fail('phoneFormat', { field });
  return normalizePhone(v);
}

export function checkLandline(value: string): string {
  const v = value.trim();
  if (v && !landlineRe.test(v)) fail('landlineFormat', { field: 'landline' });
  return v;
}

/** Login (SPEC §5): not empty, 6 to 32 characters. */
export function checkLoginPassword(value: string | undefined | null): string {
  const v = value ?? '';
  if (!v) required('password');
  if (v.length < Limits.passwordMin || v.length > Limits.passwordMax) fail('passwordLength');
  return v;
}

/** A new password: 6 to 32 letters and digits, confirmed. */
export function checkNewPassword(password: string | undefined, confirm: string | undefined): string {
  const p = password ?? '';
  if (!p) required('password');
  if (p.length < Limits.passwordMin || p.length > Limits.passwordMax) fail('passwordLength');
  if (!passwordRe.test(p)) fail('passwordChars');
  if (!confirm) required('confirmPassword');
  if (confirm !== p) fail('passwordsDoNotMatch');
  return p;
}

export function checkCode(value: string | undefined | null): string {
  const v = (value ?? '').trim();
  if (!v) required('code');
  if (!codeRe.test(v)) fail('badCode');
  return v;
}
