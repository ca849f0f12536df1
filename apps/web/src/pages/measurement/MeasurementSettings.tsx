import { Tabs } from 'antd';
import { useTranslation } from '@/i18n';
import { CalibrationPanel } from './CalibrationPanel';
import { TolerancesPanel } from './TolerancesPanel';

/** The measurement settings of a MEASURE model: calibration and tolerances (opened from its test page). */
export function MeasurementSettings({ modelId, testId }: { modelId: string; testId?: number }) {
  const { t } = useTranslation('measurement');
  return (
    <Tabs
      data-testid="measurement-settings"
      items={[
        { key: 'calibration', label: <span data-testid="measurement-tab-calibration">{t('calibration.title')}</span>, children: <CalibrationPanel modelId={modelId} /> },
        { key: 'tolerances', label: <span data-testid="measurement-tab-tolerances">{t('tolerances.title')}</span>, children: <TolerancesPanel modelId={modelId} testId={testId} /> },
      ]}
    />
  );
}
