import './models.css';
import { Alert, Card, Col, Form, Input, Modal, Row, Typography } from 'antd';
import { Link } from 'react-router-dom';
import { Limits, type ModelData, type ModelType } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { useCreateModelForm } from './useCreateModelForm';
import { MODEL_TYPES, TYPE_ICONS } from './modelTypes';

interface Props {
  open: boolean;
  onClose: () => void;
  onCreated: (model: ModelData) => void;
}

function TypeCards({ value, onChange }: { value?: ModelType; onChange?: (type: ModelType) => void }) {
  const { t } = useTranslation('models');
  return (
    <Row gutter={[12, 12]} role="radiogroup">
      {MODEL_TYPES.map((type) => (
        <Col xs={12} md={8} lg={6} key={type}>
          <Card
            hoverable
            size="small"
            role="radio"
            aria-checked={value === type}
            tabIndex={0}
            className={`loupe-type-card${value === type ? ' loupe-type-card-selected' : ''}`}
            onClick={() => onChange?.(type)}
            onKeyDown={(e) => (e.key === 'Enter' || e.key === ' ') && onChange?.(type)}
            data-testid={`model-type-${type}`}
          >
            <div className="loupe-type-card-icon">{TYPE_ICONS[type]}</div>
            <Typography.Text strong>{t(`types.${type}.title`)}</Typography.Text>
            <Typography.Paragraph type="secondary" className="loupe-type-card-text">
              {t(`types.${type}.text`)}
            </Typography.Paragraph>
          </Card>
        </Col>
      ))}
    </Row>
  );
}

/** The create-model dialog (SPEC §2 /creatModel, §5 model rules). Rules come from contracts' limits. */
export function CreateModelDialog({ open, onClose, onCreated }: Props) {
  const { t } = useTranslation(['models', 'errors']);
  const { form, submit, error, pending } = useCreateModelForm((model) => {
    form.resetFields();
    onCreated(model);
  });
  const field = (name: string) => t(`models:create.${name}`);

  return (
    <Modal
      open={open}
      title={t('models:create.title')}
      width={880}
      okText={t('models:create.submit')}
      cancelText={t('models:create.cancel')}
      okButtonProps={{ loading: pending, 'data-testid': 'create-model-submit' }}
      cancelButtonProps={{ 'data-testid': 'create-model-cancel' }}
      onOk={() => form.submit()}
      onCancel={onClose}
      destroyOnHidden
      data-testid="create-model-dialog"
    >
      {error && <Alert type="error" showIcon title={error} style={{ marginBottom: 16 }} data-testid="create-model-error" />}
      <Form form={form} layout="vertical" onFinish={submit} requiredMark>
        <Form.Item
          name="type"
          label={field('type')}
          rules={[{ required: true, message: t('models:create.typeRequired') }]}
        >
          <TypeCards />
        </Form.Item>
        {/* The full-page form explains each type with an example image. */}
        <Typography.Paragraph style={{ marginTop: -8 }}>
          <Link to="/creatModel2" onClick={onClose} data-testid="create-model-about-types">
            {t('models:create.aboutTypes')}
          </Link>
        </Typography.Paragraph>
        <Form.Item
          name="name"
          label={field('name')}
          rules={[
            { required: true, whitespace: true, message: t('errors:fieldRequired', { field: field('name') }) },
            { max: Limits.modelNameMax, message: t('errors:fieldTooLong', { field: field('name'), max: Limits.modelNameMax }) },
          ]}
        >
          <Input data-testid="create-model-name" />
        </Form.Item>
        <Form.Item
          name="note"
          label={field('note')}
          rules={[{ max: Limits.modelNoteMax, message: t('errors:fieldTooLong', { field: field('note'), max: Limits.modelNoteMax }) }]}
        >
          <Input.TextArea data-testid="create-model-note" rows={2} />
        </Form.Item>
      </Form>
    </Modal>
  );
}
