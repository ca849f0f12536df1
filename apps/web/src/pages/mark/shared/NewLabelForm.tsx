import { Button, Form, Input } from 'antd';
import { PlusOutlined } from '@ant-design/icons';
import type { LabelData } from '@loupe/contracts';
import { isApiError } from '@/api/errors';
import { useTranslation } from '@/i18n';
import { useLabelMutations } from '@/pages/gallery/galleryApi';
import { nextColor } from '@/pages/gallery/labels/colors';
import { labelNameRules } from '@/pages/gallery/labels/nameRules';

/**
 * Create a label without leaving the labeling page (SPEC §5: a label must be selected or created before
 * annotating). The gallery's label calls are reused, colour taken from its palette; "label name already exists"
 * and "label count exceeded" land on the field.
 */
export function NewLabelForm({ modelId, count, onCreated }: { modelId: string; count: number; onCreated: (label: LabelData) => void }) {
  const { t } = useTranslation('mark');
  const { create } = useLabelMutations(modelId);
  const [form] = Form.useForm<{ name: string }>();
  const field = t('labels.name');

  const add = async ({ name }: { name: string }) => {
    try {
      const label = await create.mutateAsync({ name: name.trim(), color: nextColor(count) });
      // Clear only what was sent: a user who already typed the next name while this one was saved keeps it.
      if (form.getFieldValue('name') === name) form.resetFields();
      onCreated(label);
    } catch (e) {
      if (!isApiError(e) || !e.handled) form.setFields([{ name: 'name', errors: [e instanceof Error ? e.message : String(e)] }]);
    }
  };

  return (
    <Form form={form} layout="inline" onFinish={add} className="loupe-mark-new-label">
      <Form.Item
        name="name"
        style={{ flex: 1, marginInlineEnd: 4 }}
        rules={labelNameRules(t, field)}
      >
        <Input placeholder={t('labels.newName')} aria-label={t('labels.newName')} data-testid="mark-label-new-name" />
      </Form.Item>
      <Button htmlType="submit" icon={<PlusOutlined />} loading={create.isPending} aria-label={t('labels.add')} data-testid="mark-label-add" />
    </Form>
  );
}
