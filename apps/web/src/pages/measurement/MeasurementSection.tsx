import { useState } from 'react';
import { Button, Card, Drawer } from 'antd';
import { SettingOutlined } from '@ant-design/icons';
import type { ModelType, TestRunData } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { useLabels } from '@/pages/gallery/galleryApi';
import { MeasurementResults } from './MeasurementResults';
import { MeasurementSettings } from './MeasurementSettings';

/**
 * What /test adds for a MEASURE model: the run's measurements with OK/NG, and the settings (calibration,
 * tolerances) in a drawer. Renders nothing for the other model types, so the test page mounts it as is.
 */
export function MeasurementSection({ modelId, type, run }: { modelId: string; type: ModelType | undefined; run: TestRunData | undefined }) {
  const { t } = useTranslation('measurement');
  const [open, setOpen] = useState(false);
  const labels = useLabels(modelId);
  if (type !== 'MEASURE') return null;
  const names = new Map((labels.data ?? []).map((l) => [l.id, l.name]));
  const labelName = (id: number | null) => (id === null ? t('results.allLabels') : (names.get(id) ?? `#${id}`));
  return (
    <Card
      size="small"
      title={t('title')}
      style={{ marginTop: 16 }}
      data-testid="measurement-section"
      extra={
        <Button icon={<SettingOutlined />} onClick={() => setOpen(true)} data-testid="measurement-open-settings">
          {t('settings')}
        </Button>
      }
    >
      {run && run.status === 'succeeded' ? <MeasurementResults key={run.id} modelId={modelId} testId={run.id} labelName={labelName} /> : t('results.noRun')}
      <Drawer open={open} onClose={() => setOpen(false)} width={720} title={t('settings')} destroyOnHidden data-testid="measurement-drawer">
        <MeasurementSettings modelId={modelId} testId={run?.status === 'succeeded' ? run.id : undefined} />
      </Drawer>
    </Card>
  );
}
