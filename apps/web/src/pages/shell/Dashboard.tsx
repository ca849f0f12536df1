import { Link } from 'react-router-dom';
import { Alert, Card, Col, Row, Typography } from 'antd';
import { CheckCircleOutlined, CloudUploadOutlined, DownloadOutlined, EditOutlined } from '@ant-design/icons';
import type { ReactNode } from 'react';
import { useTranslation } from '@/i18n';
import { useProject } from '@/stores/project';
import { stepPath } from '@/routes/steps';
import { MODEL_LIST_PATH } from '@/routes/table';

interface Step {
  key: 'upload' | 'annotate' | 'test' | 'download';
  icon: ReactNode;
  step: string;
}

/** The four steps of the working flow (SPEC §2 home), each leading to its page for the open project. */
const STEPS: Step[] = [
  { key: 'upload', icon: <CloudUploadOutlined />, step: 'gallery' },
  { key: 'annotate', icon: <EditOutlined />, step: 'mark' },
  { key: 'test', icon: <CheckCircleOutlined />, step: 'test' },
  { key: 'download', icon: <DownloadOutlined />, step: 'download' },
];

export function Dashboard() {
  const { t } = useTranslation('layout');
  const project = useProject((s) => s.project);

  return (
    <div className="loupe-page" data-testid="dashboard">
      <Typography.Title level={3} data-testid="page-title">
        {t('routes:dashboard')}
      </Typography.Title>
      <Typography.Paragraph type="secondary">{t('dashboard.intro')}</Typography.Paragraph>
      {!project && (
        <Alert
          type="info"
          showIcon
          style={{ marginBottom: 16 }}
          title={t('dashboard.noProject')}
          action={<Link to={MODEL_LIST_PATH}>{t('back.modelList')}</Link>}
        />
      )}
      <Row gutter={[16, 16]}>
        {STEPS.map((s, index) => (
          <Col xs={24} sm={12} xl={6} key={s.key}>
            <Link to={stepPath(s.step, project?.type)} data-testid={`dashboard-step-${s.key}`}>
              <Card hoverable className="loupe-step-card">
                <div className="loupe-step-icon">{s.icon}</div>
                <Typography.Text type="secondary">{t('dashboard.stepNo', { n: index + 1 })}</Typography.Text>
                <Typography.Title level={4}>{t(`dashboard.steps.${s.key}.title`)}</Typography.Title>
                <Typography.Paragraph type="secondary">{t(`dashboard.steps.${s.key}.text`)}</Typography.Paragraph>
              </Card>
            </Link>
          </Col>
        ))}
      </Row>
    </div>
  );
}
