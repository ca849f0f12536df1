import { Alert, Button, Result, Spin } from 'antd';
import { Link } from 'react-router-dom';
import { useTranslation } from '@/i18n';
import { MODEL_LIST_PATH } from '@/routes/table';
import { isApiError } from '@/api/errors';

/** No model is open (a bookmark, a new tab): the pages need one. */
export function NoProject() {
  const { t } = useTranslation('training');
  return (
    <Alert
      type="info"
      showIcon
      title={t('noProject')}
      action={<Link to={MODEL_LIST_PATH}>{t('toModels')}</Link>}
      data-testid="training-no-project"
    />
  );
}

export function Loading({ testId }: { testId: string }) {
  return (
    <div className="loupe-training-loading" data-testid={testId}>
      <Spin size="large" />
    </div>
  );
}

/** A load failed: the server's message (already in the user's language) and a retry. */
export function LoadError({ error, onRetry, testId }: { error: unknown; onRetry: () => void; testId: string }) {
  const { t } = useTranslation('training');
  const detail = isApiError(error) && error.message ? error.message : t('loadFailed');
  return (
    <Result
      status="warning"
      title={t('loadFailed')}
      subTitle={detail !== t('loadFailed') ? detail : undefined}
      data-testid={testId}
      extra={
        <Button onClick={onRetry} data-testid={`${testId}-retry`}>
          {t('retry')}
        </Button>
      }
    />
  );
}
