import { Button, Result } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { AuthCard } from '../shared/AuthCard';

/** /registered/comfirm: the account is activated and now waits for a person to review it (SPEC §6). */
export default function RegisteredConfirm() {
  const { t } = useTranslation('auth');
  return (
    <AuthCard title={t('review.title')} testId="registered-confirm">
      <Result status="success" title={t('review.activated')} subTitle={t('review.contact')} />
      <Link to="/signin">
        <Button type="primary" block data-testid="review-signin">
          {t('common.backToSignIn')}
        </Button>
      </Link>
    </AuthCard>
  );
}
