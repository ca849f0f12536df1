import { useEffect, useRef, useState } from 'react';
import { Button, ColorPicker, Form, Input, List, Popconfirm, Space, Typography } from 'antd';
import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { Limits, type LabelData } from '@loupe/contracts';
import { isApiError } from '@/api/errors';
import { useTranslation } from '@/i18n';
import { useLabelMutations, useLabels } from '../galleryApi';
import { nextColor } from './colors';
import { labelNameRules } from './nameRules';

interface NewLabel {
  name: string;
  color: string;
}

/** The message of a silent label call's refusal ("label name already exists", "label count exceeded"…). */
const reasonOf = (e: unknown) => (e instanceof Error ? e.message : String(e));

function LabelRow({ modelId, label }: { modelId: string; label: LabelData }) {
  const { t } = useTranslation('gallery');
  const { update, remove } = useLabelMutations(modelId);
  const [name, setName] = useState(label.name);
  const [error, setError] = useState<string | null>(null);

  const rename = () => {
    const next = name.trim();
    if (next === label.name) return setError(null);
    if (!next) return setError(t('errors:fieldRequired', { field: t('labels.name') }));
    if (next.length > Limits.labelNameMax) return setError(t('errors:fieldTooLong', { field: t('labels.name'), max: Limits.labelNameMax }));
    update.mutate({ id: label.id, name: next }, { onSuccess: () => setError(null), onError: (e) => setError(reasonOf(e)) });
  };

  return (
    <List.Item data-testid={`label-row-${label.id}`} data-name={label.name}>
      <Space orientation="vertical" size={2} style={{ width: '100%' }}>
        <Space.Compact style={{ width: '100%' }}>
          <ColorPicker
            value={label.color}
            disabledAlpha
            onChangeComplete={(c) => update.mutate({ id: label.id, color: c.toHexString() })}
            data-testid={`label-color-${label.id}`}
          />
          <Input
            value={name}
            status={error ? 'error' : undefined}
            onChange={(e) => setName(e.target.value)}
            onBlur={rename}
            onPressEnter={rename}
            aria-label={t('labels.name')}
            data-testid={`label-name-${label.id}`}
          />
          <Popconfirm
            title={t('labels.deleteTitle', { name: label.name })}
            description={t('labels.deleteBody', { count: label.imageCount })}
            okText={t('labels.delete')}
            cancelText={t('labels.cancel')}
            okButtonProps={{ danger: true, 'data-testid': `label-delete-confirm-${label.id}` }}
            onConfirm={() => remove.mutateAsync(label.id).catch(() => undefined)}
          >
            <Button danger icon={<DeleteOutlined />} aria-label={t('labels.delete')} data-testid={`label-delete-${label.id}`} />
          </Popconfirm>
        </Space.Compact>
        {error ? (
          <Typography.Text type="danger" data-testid={`label-error-${label.id}`}>
            {error}
          </Typography.Text>
        ) : (
          <Typography.Text type="secondary">{t('labels.images', { count: label.imageCount })}</Typography.Text>
        )}
      </Space>
    </List.Item>
  );
}

/** Create, rename, recolour and delete the model's labels (SPEC §3, §5). */
export function LabelPanel({ modelId }: { modelId: string }) {
  const { t } = useTranslation('gallery');
  const labels = useLabels(modelId);
  const { create } = useLabelMutations(modelId);
  const [form] = Form.useForm<NewLabel>();
  const items = labels.data ?? [];
  const field = t('labels.name');

  // Offer the next palette colour once the labels are known, unless the user already picked one (the form's own
  // touched flag cannot tell: setting a value marks the field touched).
  const picked = useRef(false);
  useEffect(() => {
    if (!picked.current) form.setFieldValue('color', nextColor(items.length));
  }, [form, items.length]);

  const add = async (values: NewLabel) => {
    try {
      await create.mutateAsync({ name: values.name.trim(), color: values.color });
      form.resetFields();
      picked.current = false;
      form.setFieldValue('color', nextColor(items.length + 1));
    } catch (e) {
      if (!isApiError(e) || !e.handled) form.setFields([{ name: 'name', errors: [reasonOf(e)] }]);
    }
  };

  return (
    <div data-testid="label-panel">
      <Typography.Title level={5}>{t('labels.title', { count: items.length })}</Typography.Title>
      <Form form={form} layout="inline" onFinish={add} initialValues={{ color: nextColor(items.length) }} style={{ marginBottom: 8 }}>
        <Form.Item
          name="color"
          getValueFromEvent={(c: { toHexString: () => string }) => {
            picked.current = true;
            return c.toHexString();
          }}
          style={{ marginInlineEnd: 4 }}
        >
          <ColorPicker disabledAlpha data-testid="label-new-color" />
        </Form.Item>
        <Form.Item
          name="name"
          style={{ flex: 1, marginInlineEnd: 4 }}
          rules={labelNameRules(t, field)}
        >
          <Input placeholder={t('labels.newName')} data-testid="label-new-name" />
        </Form.Item>
        <Button type="primary" htmlType="submit" icon={<PlusOutlined />} loading={create.isPending} data-testid="label-add">
          {t('labels.add')}
        </Button>
      </Form>
      <List<LabelData>
        size="small"
        loading={labels.isLoading}
        dataSource={items}
        locale={{ emptyText: t('labels.empty') }}
        renderItem={(label) => <LabelRow key={`${label.id}-${label.name}`} modelId={modelId} label={label} />}
      />
    </div>
  );
}
