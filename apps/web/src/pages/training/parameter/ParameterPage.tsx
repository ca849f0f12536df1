import { useCallback, useMemo } from 'react';
import { App, Badge, Button, Card, Form, Popconfirm, Row, Space, Tag, Typography } from 'antd';
import { Errors, type TrainingParamKey } from '@loupe/contracts';
import { isApiError } from '@/api/errors';
import { useTranslation } from '@/i18n';
import { useProject } from '@/stores/project';
import { LoadError, Loading, NoProject } from '../shared/PageStates';
import { dateTime } from '../shared/format';
import { useResetParams, useSaveParams, useSavedParams } from '../trainingApi';
import { ParamField } from './ParamField';
import { changedKeys, defaultValues, defOf, formValuesOf, GROUPS, keysOf, PARAM_KEYS, toSaved, type FormValues } from './paramForm';

interface ServerProblem {
  field: string;
  reason: string;
  message?: string;
}

/** The server's per-field problems of a refused save (validation with data.problems), if any. */
function problemsIn(error: unknown): ServerProblem[] {
  if (!isApiError(error)) return [];
  const problems = (error.data as { problems?: unknown } | null)?.problems;
  return Array.isArray(problems) ? (problems as ServerProblem[]).filter((p) => typeof p?.field === 'string') : [];
}

function ParameterForm({ modelId, initial, updatedAt }: { modelId: string; initial: FormValues; updatedAt: string | null }) {
  const { t } = useTranslation(['training', 'errors']);
  const { message } = App.useApp();
  const [form] = Form.useForm<FormValues>();
  const save = useSaveParams(modelId);
  const reset = useResetParams(modelId);
  const watched = Form.useWatch([], form) as Partial<FormValues> | undefined;
  const values = watched && Object.keys(watched).length > 0 ? watched : initial;
  const changed = useMemo(() => new Set(changedKeys(values)), [values]);
  const unsaved = PARAM_KEYS.some((key) => key in values && values[key] !== initial[key]);

  const onRestore = useCallback(
    (key: TrainingParamKey) => {
      form.setFieldValue(key, defOf(key).default);
      void form.validateFields([key]).catch(() => undefined);
    },
    [form],
  );

  const onSave = async () => {
    let checked: FormValues;
    try {
      checked = await form.validateFields();
    } catch {
      void message.error(t('parameter.fixProblems'));
      return;
    }
    try {
      await save.mutateAsync(toSaved(checked));
      void message.success(t('parameter.saved'));
    } catch (error) {
      const problems = problemsIn(error);
      form.setFields(problems.map((p) => ({ name: p.field as TrainingParamKey, errors: [p.message ?? p.reason] })));
      if (isApiError(error) && error.handled) return;
      const base = t('errors:parameterSaveFailed');
      const detail = isApiError(error) && error.code !== Errors.parameterSaveFailed.code && problems.length === 0 ? error.message : '';
      void message.error(detail ? `${base} ${detail}` : base);
    }
  };

  const onReset = async () => {
    try {
      const data = await reset.mutateAsync();
      form.resetFields();
      form.setFieldsValue(formValuesOf(data.saved));
      void message.success(t('parameter.resetDone'));
    } catch (error) {
      if (isApiError(error) && error.handled) return;
      void message.error(t('errors:parameterResetFailed'));
    }
  };

  return (
    <Form form={form} layout="vertical" initialValues={initial} data-testid="param-form" className="loupe-param-form">
      <div className="loupe-training-toolbar">
        <Space wrap>
          <Typography.Text data-testid="param-changed-count" data-count={changed.size}>
            {t('parameter.changedCount', { count: changed.size })}
          </Typography.Text>
          {unsaved && (
            <Tag color="orange" data-testid="param-unsaved">
              {t('parameter.unsaved')}
            </Tag>
          )}
          {updatedAt && (
            <Typography.Text type="secondary" data-testid="param-saved-at">
              {t('parameter.savedAt', { time: dateTime(updatedAt) })}
            </Typography.Text>
          )}
        </Space>
        <Space wrap>
          <Popconfirm
            title={t('parameter.resetConfirm')}
            onConfirm={onReset}
            okText={t('parameter.reset')}
            cancelText={t('cancel')}
            okButtonProps={{ 'data-testid': 'param-reset-confirm' }}
          >
            <Button loading={reset.isPending} data-testid="param-reset">
              {t('parameter.reset')}
            </Button>
          </Popconfirm>
          <Button type="primary" loading={save.isPending} onClick={() => void onSave()} data-testid="param-save">
            {t('parameter.save')}
          </Button>
        </Space>
      </div>
      <Typography.Paragraph type="secondary">{t('parameter.intro')}</Typography.Paragraph>
      {GROUPS.map((group) => {
        const keys = keysOf(group);
        const count = keys.filter((k) => changed.has(k)).length;
        return (
          <Card
            key={group}
            size="small"
            className="loupe-param-group"
            data-testid={`param-group-${group}`}
            data-changed={count}
            title={
              <Space>
                {t(`parameter.groups.${group}`)}
                {count > 0 && <Badge count={count} color="gold" title={t('parameter.changedCount', { count })} />}
              </Space>
            }
          >
            <Row gutter={16}>
              {keys.map((key) => (
                <ParamField key={key} name={key} changed={changed.has(key)} onRestore={onRestore} />
              ))}
            </Row>
          </Card>
        );
      })}
    </Form>
  );
}

/** /parameter: the saved training parameters over the engine's defaults, by group (SPEC §2, §3, §5). */
export default function ParameterPage() {
  const project = useProject((s) => s.project);
  if (!project) return <NoProject />;
  return <ParameterLoader key={project.id} modelId={project.id} />;
}

function ParameterLoader({ modelId }: { modelId: string }) {
  const saved = useSavedParams(modelId);
  // Built once per load: the form keeps its own values from then on.
  const initial = useMemo(() => (saved.data ? formValuesOf(saved.data.saved) : defaultValues()), [saved.data]);
  if (saved.isPending) return <Loading testId="param-loading" />;
  if (saved.isError) return <LoadError error={saved.error} onRetry={() => void saved.refetch()} testId="param-error" />;
  return <ParameterForm modelId={modelId} initial={initial} updatedAt={saved.data.updatedAt} />;
}
