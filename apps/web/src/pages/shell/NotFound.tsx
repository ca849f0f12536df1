import { Link } from 'react-router-dom';
import { Button, Result } from 'antd';
import { useTranslation } from '@/i18n';
import { useSession } from '@/stores/session';
import { MODEL_LIST_PATH } from '@/routes/table';

export function NotFound() {
  const { t } = useTranslation('layout');
  const signedIn = useSession((s) => Boolean(s.token));
  return (
    <Result
      status="404"
      title="404"
      subTitle={t('notFound.text')}
      data-testid="not-found"
      extra={
        <Link to={signedIn ? MODEL_LIST_PATH : '/signin'}>
          <Button type="primary">{t(signedIn ? 'notFound.toModels' : 'notFound.toSignIn')}</Button>
        </Link>
      }
    />
  );
}
