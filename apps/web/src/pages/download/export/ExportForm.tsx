import { useEffect } from 'react';
import { Alert, Button, Col, Form, InputNumber, Radio, Row, Space, Typography, type FormInstance } from 'antd';
import { ExportOutlined } from '@ant-design/icons';
import { SdkTypes, type PackKind, type TrainingData } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { VersionSelect } from '@/pages/testing/shared/VersionSelect';
import { asksSdkType, positiveIntProblem, rotatedHint, rotatedProblem, SDK_GPU_RANGES, sdkTypeProblem, type ExportFormValues } from './exportRules';

interface Props {
  form: FormInstance<ExportFormValues>;
  kind: PackKind;
  initial: ExportFormValues;
  versions: readonly TrainingData[];
  versionsLoading: boolean;
  packing: boolean;
  submitting: boolean;
  onSubmit: (values: ExportFormValues) => void;
}

const check = (problem: string | null, t: (key: string) => string) => (problem ? Promise.reject(new Error(t(`rules.${problem}`))) : Promise.resolve());

/** SPEC §3 export fields with the §5 rules, checked in the user's language before anything is sent. */
export function ExportForm({ form, kind, initial, versions, versionsLoading, packing, submitting, onSubmit }: Props) {
  const { t } = useTranslation('download');
  const trainingId = Form.useWatch('trainingId', form);
  const sdkType = Form.useWatch('sdkType', form);
  const rotated = Form.useWatch('rotated', form);
  const training = versions.find((v) => v.id === trainingId);
  const hint = asksSdkType(kind) ? rotatedHint(sdkType, rotated) : null;
  useEffect(() => form.setFieldsValue(initial), [form, initial]);

  const positive = { validator: (_: unknown, v: unknown) => check(positiveIntProblem(v), t) };
  // No `min` on the inputs: antd would silently clamp a 0 to 1, and the user should read why it is refused.
  const number = (name: 'inputW' | 'inputH' | 'maxDet', testId: string) => (
    <Form.Item name={name} label={t(`form.${name}`)} rules={[positive]} validateFirst>
      <InputNumber precision={0} style={{ width: '100%' }} data-testid={testId} />
    </Form.Item>
  );

  return (
    <Form<ExportFormValues>
      form={form}
      layout="vertical"
      initialValues={initial}
      onFinish={onSubmit}
      onValuesChange={(changed: ExportFormValues) => {
        // The rotated-box type follows the chosen version: it must match what that version learned.
        const next = versions.find((v) => v.id === changed.trainingId);
        if (next) form.setFieldValue('rotated', next.rotated);
      }}
      requiredMark={false}
      data-testid="export-form"
    >
      <Form.Item name="trainingId" label={t('form.version')}>
        <VersionSelect versions={versions} loading={versionsLoading} data-testid="export-version" />
      </Form.Item>
      <Typography.Text type="secondary">{t('form.camera')}</Typography.Text>
      <Row gutter={12}>
        <Col span={12}>{number('inputW', 'export-width')}</Col>
        <Col span={12}>{number('inputH', 'export-height')}</Col>
      </Row>
      {number('maxDet', 'export-max-det')}
      {asksSdkType(kind) && (
        <Form.Item name="sdkType" label={t('form.sdkType')} rules={[{ validator: (_, v) => check(sdkTypeProblem(v), t) }]}>
          <Radio.Group data-testid="export-sdk-type">
            <Space orientation="vertical">
              {SdkTypes.map((s) => (
                <Radio key={s} value={s} data-testid={`export-sdk-${s}`}>
                  {t(`sdk.${s}`)}
                  <Typography.Text type="secondary" style={{ marginLeft: 8 }}>
                    {t(`sdk.${s}Help`, { range: SDK_GPU_RANGES[s] ?? '' })}
                  </Typography.Text>
                </Radio>
              ))}
            </Space>
          </Radio.Group>
        </Form.Item>
      )}
      <Form.Item
        name="rotated"
        label={t('form.rotated')}
        dependencies={['trainingId']}
        rules={[{ validator: (_, v: boolean | undefined) => check(rotatedProblem(v, training), t) }]}
        extra={training ? t(training.rotated ? 'form.trainedRotated' : 'form.trainedUpright') : undefined}
      >
        <Radio.Group>
          <Radio value={true} data-testid="export-rotated-yes">
            {t('form.rotatedYes')}
          </Radio>
          <Radio value={false} data-testid="export-rotated-no">
            {t('form.rotatedNo')}
          </Radio>
        </Radio.Group>
      </Form.Item>
      {hint && <Alert type="warning" showIcon style={{ marginBottom: 16 }} title={t(`hints.${hint}`)} data-testid="export-rotated-hint" />}
      <Button type="primary" htmlType="submit" icon={<ExportOutlined />} loading={submitting} disabled={packing} block data-testid="export-submit">
        {t(`form.submit.${kind}`)}
      </Button>
    </Form>
  );
}
