import { Button, Form, Input } from 'antd';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { authApi } from '../shared/authApi';
import { FormError } from '../shared/FormError';
import { formRules } from '../shared/rules';
import { useSignedIn } from '../shared/useSignedIn';

interface Values {
  username: string;
  password: string;
}

/** Account + password sign-in (POST /api/login), for email and phone alike; the server decides what it accepts. */
export function PasswordSignInForm({ channel, initialUsername }: { channel: 'email' | 'phone'; initialUsername: string }) {
  const { t } = useTranslation('auth');
  const rules = formRules(t);
  const signedIn = useSignedIn();
  const login = useMutation({ mutationFn: authApi.login, onSuccess: signedIn });
  const userLabel = t(channel === 'email' ? 'fields.account' : 'fields.phone');

  const submit = (v: Values) => login.mutate({ username: v.username.trim(), password: v.password });

  return (
    <Form<Values> layout="vertical" initialValues={{ username: initialUsername }} onFinish={submit} requiredMark={false}>
      <FormError error={login.error} testId="signin-error" />
      <Form.Item name="username" label={userLabel} rules={[rules.required(userLabel)]}>
        <Input autoComplete="username" data-testid={channel === 'email' ? 'signin-email' : 'signin-phone'} />
      </Form.Item>
      <Form.Item
        name="password"
        label={t('fields.password')}
        rules={[rules.required(t('fields.password')), rules.passwordLength]}
      >
        <Input.Password autoComplete="current-password" autoFocus={!!initialUsername} data-testid="signin-password" />
      </Form.Item>
      <Button type="primary" htmlType="submit" block loading={login.isPending} data-testid="signin-submit">
        {t('signin.submit')}
      </Button>
    </Form>
  );
}
