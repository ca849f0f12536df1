import { Button, Form, Input } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router-dom';
import { AuthCard } from '../shared/AuthCard';
import { AuthLinks } from '../shared/AuthLinks';
import { formRules } from '../shared/rules';
import { useQueryParam } from '../shared/useQueryParam';

/** /signinEmail: first step of the password sign-in; the private-deployment entry page as well. */
export default function SigninEmail() {
  const { t } = useTranslation('auth');
  const navigate = useNavigate();
  const rules = formRules(t);
  const initial = useQueryParam('email');

  const next = ({ email }: { email: string }) =>
    navigate(`/signinEmailPassword?email=${encodeURIComponent(email.trim())}`);

  return (
    <AuthCard title={t('signin.title')} subtitle={t('signin.emailStep')} testId="signin-email-step">
      <Form layout="vertical" initialValues={{ email: initial }} onFinish={next} requiredMark={false}>
        <Form.Item name="email" label={t('fields.email')} rules={[rules.required(t('fields.email'))]}>
          <Input autoComplete="username" autoFocus data-testid="signin-email" />
        </Form.Item>
        <Button type="primary" htmlType="submit" block data-testid="signin-next">
          {t('common.next')}
        </Button>
      </Form>
      <div style={{ marginTop: '1rem' }}>
        <Link to="/signin-home" data-testid="link-other-ways">
          {t('signin.otherWays')}
        </Link>
      </div>
      <AuthLinks show={['signup', 'forgot']} />
    </AuthCard>
  );
}
