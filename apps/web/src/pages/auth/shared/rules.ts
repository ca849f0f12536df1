import type { FormRule } from 'antd';
import type { TFunction } from 'i18next';
import { Limits, forbiddenNameChar } from '@loupe/contracts';

/**
 * Ant Design form rules derived from contracts (SPEC §5). Messages come from the `errors` namespace, the same
 * catalogue the server answers with, so a value refused in the form reads exactly like the server's refusal.
 */
export function formRules(t: TFunction) {
  // Values are trimmed before they are sent, so surrounding spaces must not fail the format check.
  const pattern = (source: string, key: string): FormRule => {
    const re = new RegExp(source);
    return {
      validator: (_rule, value: unknown) =>
        !value || re.test(String(value).trim()) ? Promise.resolve() : Promise.reject(new Error(t(key))),
    };
  };
  return {
    required: (field: string): FormRule => ({
      required: true,
      whitespace: true,
      message: t('errors:fieldRequired', { field }),
    }),
    textMax: (field: string): FormRule => ({
      max: Limits.textMax,
      message: t('errors:fieldTooLong', { field, max: Limits.textMax }),
    }),
    /** A name (person, company, job title, country) refuses control, zero-width and text-direction characters, as the server does. */
    name: (field: string): FormRule => ({
      validator: (_rule, value: unknown) => {
        const char = typeof value === 'string' ? forbiddenNameChar(value.trim()) : null;
        return char ? Promise.reject(new Error(t('errors:nameCharacters', { field, char }))) : Promise.resolve();
      },
    }),
    email: pattern(Limits.emailPattern, 'errors:emailFormat'),
    phone: pattern(Limits.phonePattern, 'errors:phoneFormat'),
    landline: pattern(Limits.landlinePattern, 'errors:landlineFormat'),
    code: pattern(Limits.verificationCodePattern, 'errors:badCode'),
    passwordLength: {
      min: Limits.passwordMin,
      max: Limits.passwordMax,
      message: t('errors:passwordLength'),
    } satisfies FormRule,
    // Passwords are sent as typed, so a space anywhere is a forbidden character.
    passwordChars: { pattern: new RegExp(Limits.passwordPattern), message: t('errors:passwordChars') } satisfies FormRule,
    /** Confirmation must equal the field `other`; re-checked when either changes via `dependencies`. */
    sameAs: (other: string): FormRule => ({ getFieldValue }) => ({
      validator(_rule, value: unknown) {
        if (!value || value === getFieldValue(other)) return Promise.resolve();
        return Promise.reject(new Error(t('errors:passwordsDoNotMatch')));
      },
    }),
  };
}

/** The rules of a new password (registration, reset, set, change): length, then letters and digits only. */
export function newPasswordRules(t: TFunction, label: string): FormRule[] {
  const r = formRules(t);
  return [r.required(label), r.passwordLength, r.passwordChars];
}

/** Confirmation rules; pair with `dependencies={[field]}` on the Form.Item. */
export function confirmRules(t: TFunction, label: string, field = 'password'): FormRule[] {
  const r = formRules(t);
  return [r.required(label), r.sameAs(field)];
}
