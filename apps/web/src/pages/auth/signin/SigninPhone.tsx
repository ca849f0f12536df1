import { Button, Flex, Form, Input } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router-dom';
import { AuthCard } from '../shared/AuthCard';
import { AuthLinks } from '../shared/AuthLinks';
import { formRules } from '../shared/rules';

/** /signinPhone: enter a phone number, then continue with a password or with a code. */
export default function SigninPhone() {
  const { t } = useTranslation('auth');
  const rules = formRules(t);
  const navigate = useNavigate();
  const [form] = Form.useForm<{ phone: string }>();

  const go = async (path: string) => {
    // A rejected validation already shows its message under the field.
    const values = await form.validateFields().catch(() => null);
    if (!values) return;
    const { phone } = values;
    navigate(`${path}?phone=${encodeURIComponent(phone.trim())}`);
  };

  return (
    <AuthCard title={t('signin.titlePhone')} testId="signin-phone-step">
      <Form form={form} layout="vertical" requiredMark={false} onFinish={() => void go('/signinPhonePassword')}>
        <Form.Item name="phone" label={t('fields.phone')} rules={[rules.required(t('fields.phone')), rules.phone]}>
          <Input autoComplete="tel" data-testid="signin-phone" />
        </Form.Item>
        <Flex vertical gap="small">
          <Button type="primary" htmlType="submit" block data-testid="signin-phone-password">
            {t('signin.continueWithPassword')}
          </Button>
          <Button block onClick={() => void go('/send-verify-phone')} data-testid="signin-phone-code">
            {t('signin.continueWithCode')}
          </Button>
        </Flex>
      </Form>
      <AuthLinks show={['signin', 'signup']} />
    </AuthCard>
  );
}
