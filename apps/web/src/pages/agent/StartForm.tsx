import { App, Button, Card, Col, Form, InputNumber, Row, Select, Typography } from 'antd';
import { AgentBudgetMaxS, AgentBudgetMinS, type AgentStartBody, type LabelData, type SavedParamsData } from '@loupe/contracts';
import { useShowError } from '@/api/useShowError';
import { useTranslation } from '@/i18n';
import { useLabels } from '@/pages/gallery/galleryApi';
import { formValuesOf } from '@/pages/training/parameter/paramForm';
import { Loading } from '@/pages/training/shared/PageStates';
import { useSavedParams } from '@/pages/training/trainingApi';
import { useStartAgent } from './agentApi';

export interface StartValues {
  budgetMin: number;
  recallPct: number;
  ngLabelIds: number[];
  earlyStop: number;
}

const MIN_MINUTES = AgentBudgetMinS / 60;
const MAX_MINUTES = AgentBudgetMaxS / 60;

/** The form's defaults: the saved max training time (hours) as the budget, else an hour; the saved early stop. */
export function startDefaults(saved: SavedParamsData | undefined, labels: readonly LabelData[]): StartValues {
  const values = formValuesOf(saved?.saved);
  const hours = typeof values.time === 'number' && values.time > 0 ? values.time : 1;
  const earlyStop = typeof values.agent_early_stop === 'number' ? values.agent_early_stop : 5;
  return {
    budgetMin: Math.min(MAX_MINUTES, Math.max(MIN_MINUTES, Math.round(hours * 60))),
    recallPct: 95,
    ngLabelIds: labels.map((l) => l.id),
    earlyStop,
  };
}

/** What the server takes: seconds and a share instead of minutes and a percentage. */
export function startBody(values: StartValues): AgentStartBody {
  const body: AgentStartBody = { budgetS: Math.round(values.budgetMin * 60), recallTarget: values.recallPct / 100, earlyStop: values.earlyStop };
  if (values.ngLabelIds.length > 0) body.ngLabelIds = values.ngLabelIds;
  return body;
}

function StartFields({ labels }: { labels: readonly LabelData[] }) {
  const { t } = useTranslation('agent');
  const number = (name: keyof StartValues, min: number, max: number, testId: string, step = 1) => (
    <Form.Item name={name} label={t(`start.${name}`)} extra={t(`start.${name}Help`)} rules={[{ required: true, message: t('start.required') }]}>
      <InputNumber min={min} max={max} step={step} precision={0} style={{ width: '100%' }} data-testid={testId} />
    </Form.Item>
  );
  return (
    <Row gutter={16}>
      <Col xs={24} md={12} xl={6}>
        {number('budgetMin', MIN_MINUTES, MAX_MINUTES, 'agent-budget')}
      </Col>
      <Col xs={24} md={12} xl={6}>
        {number('recallPct', 50, 100, 'agent-recall')}
      </Col>
      <Col xs={24} md={12} xl={6}>
        {number('earlyStop', 0, 100, 'agent-early-stop')}
      </Col>
      <Col xs={24} md={12} xl={6}>
        <Form.Item
          name="ngLabelIds"
          label={t('start.ngLabelIds')}
          extra={t('start.ngLabelIdsHelp')}
          rules={labels.length > 0 ? [{ required: true, type: 'array', min: 1, message: t('start.ngRequired') }] : []}
        >
          <Select mode="multiple" allowClear data-testid="agent-ng" options={labels.map((l) => ({ value: l.id, label: l.name }))} />
        </Form.Item>
      </Col>
    </Row>
  );
}

/** The start form (SPEC §2 agent): a budget, the NG recall target and classes, when tuning gives up. */
export function StartForm({ modelId, onStarted }: { modelId: string; onStarted: () => void }) {
  const { t } = useTranslation('agent');
  const { message } = App.useApp();
  const showError = useShowError();
  const saved = useSavedParams(modelId);
  const labels = useLabels(modelId);
  const start = useStartAgent(modelId);
  const [form] = Form.useForm<StartValues>();

  if (saved.isPending || labels.isPending) return <Loading testId="agent-start-loading" />;
  const labelList = labels.data ?? [];

  const onFinish = async (values: StartValues) => {
    try {
      await start.mutateAsync(startBody(values));
      void message.success(t('start.started'));
      onStarted();
    } catch (error) {
      showError(error);
    }
  };

  return (
    <Card size="small" title={t('start.title')} data-testid="agent-start-form">
      <Typography.Paragraph type="secondary" data-testid="agent-explain">
        {t('start.explain')}
      </Typography.Paragraph>
      <Form form={form} layout="vertical" initialValues={startDefaults(saved.data, labelList)} onFinish={(v) => void onFinish(v)}>
        <StartFields labels={labelList} />
        <Button type="primary" htmlType="submit" loading={start.isPending} data-testid="agent-start">
          {t('start.submit')}
        </Button>
      </Form>
    </Card>
  );
}
