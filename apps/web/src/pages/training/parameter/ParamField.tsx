import { memo } from 'react';
import { Button, Col, Form, Input, InputNumber, Select, Switch, Tag, Typography } from 'antd';
import type { TrainingParamKey } from '@loupe/contracts';
import { currentLanguage, useTranslation } from '@/i18n';
import { usePretrainedChoices } from '../trainingApi';
import { defOf, problemOf, stepOf, type ParamValue } from './paramForm';
import { reasonText } from './reasons';

interface Props {
  name: TrainingParamKey;
  changed: boolean;
  onRestore: (key: TrainingParamKey) => void;
}

function useValueText() {
  const { t } = useTranslation('training');
  return (key: TrainingParamKey, value: ParamValue) => {
    if (typeof value === 'boolean') return t(value ? 'parameter.on' : 'parameter.off');
    if (value === '') return t(key === 'pretrained' ? 'parameter.pretrainedNone' : 'parameter.empty');
    if (defOf(key).choices) return t(`parameter.choices.${key}.${value}`, { defaultValue: String(value) });
    return String(value);
  };
}

/**
 * One parameter: its control by type, its help, default and range, and the contract's rule as validator. The
 * number box does not clamp to the range: an out-of-range value is shown as such instead of silently changed.
 */
export const ParamField = memo(function ParamField({ name, changed, onRestore }: Props) {
  const { t } = useTranslation('training');
  const valueText = useValueText();
  const def = defOf(name);
  const testId = `param-${name}`;
  const range = def.min !== undefined && def.max !== undefined ? t('parameter.range', { min: def.min, max: def.max }) : null;

  let control;
  if (def.type === 'bool') control = <Switch data-testid={testId} />;
  else if (def.type === 'enum')
    control = (
      <Select
        data-testid={testId}
        options={(def.choices ?? []).map((c) => ({ value: c, label: valueText(name, c) }))}
        style={{ width: '100%' }}
      />
    );
  else if (name === 'pretrained') control = <PretrainedSelect testId={testId} />;
  else if (def.type === 'str') control = <Input data-testid={testId} allowClear />;
  else
    control = (
      <InputNumber data-testid={testId} step={stepOf(name)} style={{ width: '100%' }} keyboard />
    );

  return (
    <Col xs={24} md={12} xl={8}>
      <div data-testid={`param-field-${name}`} data-changed={changed ? 'true' : 'false'} className="loupe-param-field">
        <Form.Item
          name={name}
          label={
            <span>
              {t(`parameter.params.${name}.label`)}
              {changed && (
                <Tag color="gold" className="loupe-param-changed" data-testid={`param-changed-${name}`}>
                  {t('parameter.changed')}
                </Tag>
              )}
            </span>
          }
          valuePropName={def.type === 'bool' ? 'checked' : 'value'}
          rules={[
            {
              validator: async (_, value: ParamValue | null) => {
                const problem = problemOf(name, value);
                if (!problem) return;
                throw new Error(problem === 'required' ? t('parameter.required') : capitalise(reasonText(currentLanguage(), problem) ?? problem));
              },
            },
          ]}
          extra={
            <>
              <Typography.Text type="secondary" className="loupe-param-help" data-testid={`param-help-${name}`}>
                {t(`parameter.params.${name}.help`)}
              </Typography.Text>
              <div className="loupe-param-meta">
                <Typography.Text type="secondary">
                  {t('parameter.default', { value: valueText(name, def.default) })}
                  {range ? ` · ${range}` : ''}
                </Typography.Text>
                {changed && (
                  <Button type="link" size="small" onClick={() => onRestore(name)} data-testid={`param-restore-${name}`}>
                    {t('parameter.restore')}
                  </Button>
                )}
              </div>
            </>
          }
        >
          {control}
        </Form.Item>
      </div>
    </Col>
  );
});

/**
 * `pretrained`: a choice among the user's own finished versions (GET /api/trainings/pretrained), never typed
 * text; the server resolves the chosen id to the weights. A saved id that is no longer offered stays visible as
 * such, so the user sees why a start is refused and can pick another.
 */
function PretrainedSelect({ testId, value, onChange }: { testId: string; value?: string; onChange?: (value: string) => void }) {
  const { t } = useTranslation('training');
  const choices = usePretrainedChoices();
  const options = [
    { value: '', label: t('parameter.pretrainedNone') },
    ...(choices.data?.items ?? []).map((c) => ({ value: String(c.trainingId), label: `${c.modelName} · ${c.version}` })),
  ];
  if (value && !options.some((o) => o.value === value)) options.push({ value, label: t('parameter.pretrainedGone', { id: value }) });
  return (
    <Select
      data-testid={testId}
      value={value ?? ''}
      onChange={onChange}
      options={options}
      loading={choices.isLoading}
      showSearch
      optionFilterProp="label"
      style={{ width: '100%' }}
    />
  );
}

const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
