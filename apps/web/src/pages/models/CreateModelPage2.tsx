import './models.css';
import './create2.css';
import { useNavigate } from 'react-router-dom';
import { Alert, Button, Card, Col, Form, Input, Row, Space, Typography } from 'antd';
import { Limits, type ModelType } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { MODEL_LIST_PATH } from '@/routes/table';
import { ExampleImage } from './ExampleImages';
import { useCreateModelForm } from './useCreateModelForm';
import { MODEL_TYPES, TYPE_ICONS } from './modelTypes';
import { useOpenModel } from './openModel';

/** Larger cards than the dialog's: an example image, what the user labels and what the model then does. */
function TypeChoice({ value, onChange }: { value?: ModelType; onChange?: (type: ModelType) => void }) {
  const { t } = useTranslation(['modelTypes', 'models']);
  return (
    <Row gutter={[16, 16]} role="radiogroup">
      {MODEL_TYPES.map((type) => (
        <Col xs={24} sm={12} lg={8} xxl={6} key={type}>
          <Card
            hoverable
            size="small"
            role="radio"
            aria-checked={value === type}
            tabIndex={0}
            className={`loupe-type-card loupe-type-card-large${value === type ? ' loupe-type-card-selected' : ''}`}
            onClick={() => onChange?.(type)}
            onKeyDown={(e) => (e.key === 'Enter' || e.key === ' ') && onChange?.(type)}
            data-testid={`create2-type-${type}`}
            cover={<ExampleImage type={type} label={t('exampleOf', { type: t(`models:types.${type}.title`) })} />}
          >
            <Space size={6} className="loupe-type-card-head">
              <span className="loupe-type-card-icon">{TYPE_ICONS[type]}</span>
              <Typography.Text strong>{t(`models:types.${type}.title`)}</Typography.Text>
            </Space>
            <Typography.Paragraph className="loupe-type-card-explain" data-testid={`create2-explain-${type}`}>
              {t(`types.${type}.explain`)}
            </Typography.Paragraph>
            <Typography.Paragraph type="secondary" className="loupe-type-card-text">
              {t('labelsWith', { how: t(`types.${type}.labels`) })}
            </Typography.Paragraph>
          </Card>
        </Col>
      ))}
    </Row>
  );
}

/** /creatModel2 (SPEC §2): the create dialog as a full page, with an explanation and an example image per type. */
export default function CreateModelPage2() {
  const { t } = useTranslation(['modelTypes', 'models', 'errors']);
  const openModel = useOpenModel();
  const navigate = useNavigate();
  const { form, submit, error, pending } = useCreateModelForm(openModel);
  const type = Form.useWatch('type', form);
  const field = (name: string) => t(`models:create.${name}`);

  return (
    <div className="loupe-create2" data-testid="create2-page">
      <Typography.Title level={3}>{t('models:create.title')}</Typography.Title>
      <Typography.Paragraph type="secondary">{t('intro')}</Typography.Paragraph>
      {error && <Alert type="error" showIcon title={error} style={{ marginBottom: 16 }} data-testid="create2-error" />}
      <Form form={form} layout="vertical" onFinish={submit} requiredMark>
        <Form.Item name="type" label={field('type')} rules={[{ required: true, message: t('models:create.typeRequired') }]}>
          <TypeChoice />
        </Form.Item>
        <Card size="small" className="loupe-create2-form" title={type ? t('nameIt', { type: t(`models:types.${type}.title`) }) : t('chooseFirst')}>
          <Form.Item
            name="name"
            label={field('name')}
            rules={[
              { required: true, whitespace: true, message: t('errors:fieldRequired', { field: field('name') }) },
              { max: Limits.modelNameMax, message: t('errors:fieldTooLong', { field: field('name'), max: Limits.modelNameMax }) },
            ]}
          >
            <Input data-testid="create2-name" />
          </Form.Item>
          <Form.Item name="note" label={field('note')} rules={[{ max: Limits.modelNoteMax, message: t('errors:fieldTooLong', { field: field('note'), max: Limits.modelNoteMax }) }]}>
            <Input.TextArea data-testid="create2-note" rows={2} />
          </Form.Item>
          <Space>
            <Button type="primary" htmlType="submit" loading={pending} data-testid="create2-submit">
              {t('models:create.submit')}
            </Button>
            <Button onClick={() => void navigate(MODEL_LIST_PATH)} data-testid="create2-cancel">
              {t('models:create.cancel')}
            </Button>
          </Space>
        </Card>
      </Form>
    </div>
  );
}
