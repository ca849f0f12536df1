import { Select, Tag } from 'antd';
import type { TrainingData } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { versionTag } from '@/layout/sidebar/rules';

interface Props {
  versions: readonly TrainingData[];
  value?: number;
  onChange?: (trainingId: number) => void;
  loading?: boolean;
  'data-testid'?: string;
}

/** "finetuned_v3 · mAP50 92.1 % · rotated": enough to tell versions apart (SPEC §2 version tag). */
export function versionLabel(t: TrainingData): string {
  const name = versionTag(t.version) ?? t.version;
  const accuracy = t.accuracy === null ? '' : ` · mAP50 ${(t.accuracy * 100).toFixed(1)} %`;
  return `${name}${accuracy}`;
}

/** The succeeded trainings to test or export; a form item controls it. */
export function VersionSelect({ versions, value, onChange, loading, ...rest }: Props) {
  const { t } = useTranslation('testing');
  return (
    <Select<number>
      value={value}
      onChange={onChange}
      loading={loading}
      placeholder={t('version.placeholder')}
      notFoundContent={t('version.none')}
      data-testid={rest['data-testid']}
      options={versions.map((v) => ({
        value: v.id,
        label: (
          <span data-testid={`version-option-${v.id}`}>
            {versionLabel(v)} {v.rotated && <Tag>{t('version.rotated')}</Tag>}
          </span>
        ),
      }))}
    />
  );
}
