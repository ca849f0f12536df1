import { Select, Tag } from 'antd';
import type { TrainingData } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { versionTag } from '@/layout/sidebar/rules';
import { taskOf } from '@/pages/training/shared/tasks';

interface Props {
  versions: readonly TrainingData[];
  value?: number;
  onChange?: (trainingId: number) => void;
  loading?: boolean;
  'data-testid'?: string;
}

/**
 * "finetuned_v3 · mAP50 92.1 %": enough to tell versions apart (SPEC §2 version tag); the accuracy is named by
 * the task's headline metric (`metric`: its name in the user's language).
 */
export function versionLabel(t: TrainingData, metric: (task: string) => string = () => 'mAP50'): string {
  const name = versionTag(t.version) ?? t.version;
  const accuracy = t.accuracy === null ? '' : ` · ${metric(taskOf(t.task))} ${(t.accuracy * 100).toFixed(1)} %`;
  return `${name}${accuracy}`;
}

/** The succeeded trainings to test or export; a form item controls it. */
export function VersionSelect({ versions, value, onChange, loading, ...rest }: Props) {
  const { t } = useTranslation(['testing', 'training']);
  const metric = (task: string) => t(`training:headline.${task}`);
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
            {versionLabel(v, metric)} {v.rotated && <Tag>{t('version.rotated')}</Tag>}
          </span>
        ),
      }))}
    />
  );
}
