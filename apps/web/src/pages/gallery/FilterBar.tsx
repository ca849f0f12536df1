import { Input, Select, Space } from 'antd';
import { ImageFilters, Limits, Splits, type ImageFilter, type LabelData, type Split } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import type { GalleryFilters } from './query';

interface Props {
  value: GalleryFilters;
  labels: LabelData[];
  onChange: (next: GalleryFilters) => void;
}

/** Every image filter of SPEC §3, the split, the label and a name search. */
export function FilterBar({ value, labels, onChange }: Props) {
  const { t } = useTranslation('gallery');
  return (
    <Space wrap>
      <Select<ImageFilter>
        value={value.filter}
        style={{ minWidth: 200 }}
        onChange={(filter) => onChange({ ...value, filter })}
        options={ImageFilters.map((f) => ({ value: f, label: t(`filters.${f}`) }))}
        data-testid="gallery-filter"
      />
      <Select<Split | 'any'>
        value={value.split}
        style={{ minWidth: 150 }}
        onChange={(split) => onChange({ ...value, split })}
        options={[{ value: 'any' as const, label: t('splits.any') }, ...Splits.map((s) => ({ value: s, label: t(`splits.${s}`) }))]}
        data-testid="gallery-split-filter"
      />
      <Select<number>
        allowClear
        value={value.labelId}
        placeholder={t('filters.anyLabel')}
        style={{ minWidth: 150 }}
        onChange={(labelId) => onChange({ ...value, labelId })}
        options={labels.map((l) => ({ value: l.id, label: l.name }))}
        data-testid="gallery-label-filter"
      />
      <Input.Search
        allowClear
        placeholder={t('filters.name')}
        maxLength={Limits.textMax}
        defaultValue={value.name}
        onSearch={(name) => onChange({ ...value, name })}
        data-testid="gallery-name-filter"
      />
    </Space>
  );
}
