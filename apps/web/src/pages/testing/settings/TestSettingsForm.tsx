import { useEffect } from 'react';
import { Link } from 'react-router-dom';
import { Alert, Button, Card, Col, Form, InputNumber, Radio, Row, Select, Slider, Space, Switch, Typography, type FormInstance } from 'antd';
import { PlayCircleOutlined } from '@ant-design/icons';
import { TtaModes, type SuggestedConfidences, type TrainingData } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { stepPath } from '@/routes/steps';
import { choosesRotation, isDetection, taskOf } from '@/pages/training/shared/tasks';
import { VersionSelect } from '../shared/VersionSelect';
import { rangeOf, ttaApplies, type TestFormValues } from './settingsRules';
import { SuggestedConf } from './SuggestedConf';

interface Props {
  modelId: string;
  form: FormInstance<TestFormValues>;
  initial: TestFormValues;
  versions: readonly TrainingData[];
  versionsLoading: boolean;
  /** The agent's suggested confidences by version id (issue 35). */
  suggested?: ReadonlyMap<number, SuggestedConfidences>;
  type: string | undefined;
  /** Images chosen on /testImage for source 'images'. */
  chosen: number;
  /** A run is active: one test per model at a time (40004). */
  busy: boolean;
  starting: boolean;
  onRun: (values: TestFormValues) => void;
}

/** A 0–1 setting as a slider with a number box beside it, both bound to one form field. */
function Ratio({ name, testId, hidden }: { name: 'conf' | 'iou'; testId: string; hidden?: boolean }) {
  const { t } = useTranslation('testing');
  const { min, max } = rangeOf(name);
  const rules = [{ required: true, type: 'number' as const, min, max, message: t('settings.range', { min, max }) }];
  return (
    <Form.Item label={t(`settings.${name}`)} tooltip={t(`settings.${name}Help`)} required hidden={hidden}>
      <Row gutter={8} align="middle">
        <Col flex="auto">
          <Form.Item name={name} noStyle>
            <Slider min={min} max={max} step={0.01} />
          </Form.Item>
        </Col>
        <Col flex="88px">
          <Form.Item name={name} noStyle rules={rules}>
            <InputNumber min={min} max={max} step={0.01} precision={2} style={{ width: '100%' }} data-testid={testId} />
          </Form.Item>
        </Col>
      </Row>
    </Form.Item>
  );
}

/** SPEC §3 test settings, the version and the images, and the run button. */
export function TestSettingsForm({ modelId, form, initial, versions, versionsLoading, suggested, type, chosen, busy, starting, onRun }: Props) {
  const { t } = useTranslation('testing');
  // A type that can train boxes (detection, OCR, measurement on rotated boxes) has boxes to merge.
  const nms = isDetection(taskOf(undefined, type)) || choosesRotation(type);
  const trainingId = Form.useWatch('trainingId', form) ?? initial.trainingId;
  const tta = ttaApplies({ trainingId }, versions);
  const advice = trainingId === undefined ? undefined : suggested?.get(trainingId);
  useEffect(() => form.setFieldsValue(initial), [form, initial]);
  return (
    <Card size="small" title={t('settings.title')} data-testid="test-settings">
      {!versionsLoading && versions.length === 0 && (
        <Alert
          type="info"
          showIcon
          style={{ marginBottom: 12 }}
          title={t('version.noneYet')}
          action={<Link to={stepPath('train', type)}>{t('version.toTrain')}</Link>}
          data-testid="test-no-training"
        />
      )}
      <Form<TestFormValues> form={form} layout="vertical" initialValues={initial} onFinish={onRun} requiredMark={false}>
        <Form.Item name="trainingId" label={t('version.label')}>
          <VersionSelect versions={versions} loading={versionsLoading} data-testid="test-version" />
        </Form.Item>
        <Form.Item
          name="source"
          label={t('source.label')}
          rules={[
            {
              validator: (_, source) => (source === 'images' && chosen === 0 ? Promise.reject(new Error(t('source.noneChosen'))) : Promise.resolve()),
            },
          ]}
        >
          <Radio.Group>
            <Space orientation="vertical">
              <Radio value="testSplit" data-testid="test-source-testSplit">
                {t('source.testSplit')}
              </Radio>
              <Radio value="images" data-testid="test-source-images">
                {t('source.images', { count: chosen })}{' '}
                <Link to={stepPath('testImage', type)} data-testid="test-choose-images">
                  {t('source.choose')}
                </Link>
              </Radio>
            </Space>
          </Radio.Group>
        </Form.Item>
        <Ratio name="conf" testId="test-conf" />
        {advice && <SuggestedConf modelId={modelId} suggested={advice} onUse={(conf) => form.setFieldValue('conf', conf)} />}
        {/* Non-maximum suppression merges overlapping boxes: a classifier or a segmenter has none to merge. */}
        <Ratio name="iou" testId="test-iou" hidden={!nms} />
        <Form.Item label={t('settings.half')} extra={<span data-testid="test-half-note">{t('settings.halfNote')}</span>}>
          <Form.Item name="half" valuePropName="checked" noStyle>
            <Switch data-testid="test-half" />
          </Form.Item>
        </Form.Item>
        <Form.Item label={t('settings.agnostic')} extra={t('settings.agnosticHelp')} hidden={!nms}>
          <Form.Item name="agnostic" valuePropName="checked" noStyle>
            <Switch data-testid="test-agnostic" />
          </Form.Item>
        </Form.Item>
        <Form.Item name="tta" label={t('settings.tta')} extra={t('settings.ttaHelp')} hidden={!tta}>
          <Select options={TtaModes.map((m) => ({ value: m, label: t(`settings.ttaModes.${m}`) }))} data-testid="test-tta" />
        </Form.Item>
        {busy && (
          <Typography.Paragraph type="secondary" data-testid="test-run-busy">
            {t('run.busy')}
          </Typography.Paragraph>
        )}
        <Button type="primary" htmlType="submit" icon={<PlayCircleOutlined />} loading={starting} disabled={busy} block data-testid="test-run">
          {t('run.start')}
        </Button>
      </Form>
    </Card>
  );
}
