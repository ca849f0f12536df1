import type { FormRule } from 'antd';
import { Limits } from '@loupe/contracts';
import type { TFunction } from 'i18next';

/** A label name's form rules (SPEC §5: not empty, at most Limits.labelNameMax), shared by every label form. */
export function labelNameRules(t: TFunction, field: string): FormRule[] {
  return [
    { required: true, whitespace: true, message: t('errors:fieldRequired', { field }) },
    { max: Limits.labelNameMax, message: t('errors:fieldTooLong', { field, max: Limits.labelNameMax }) },
  ];
}
