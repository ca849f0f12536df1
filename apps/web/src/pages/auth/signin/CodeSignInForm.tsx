import { Button, Flex, Form, Input } from 'antd';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { authApi } from '../shared/authApi';
import { CountdownButton } from '../shared/CountdownButton';
import { FormError } from '../shared/FormError';
import { formRules } from '../shared/rules';
import { useSignedIn } from '../shared/useSignedIn';

type Channel = 'email' | 'phone';
type Values = Record<Channel, string> & { code: string };

/**
 * Verification-code sign-in: send a code (POST /api/email_or_phone/send_code), then sign in with it
 * (form-encoded POST /api/email_or_phone/login). Phone uses the same calls; the server answers that it is
 * not supported yet and that answer is shown.
 */
export function CodeSignInForm({ channel, initial }: { channel: Channel; initial: string }) {
  const { t } = useTranslation('auth');
  const rules = formRules(t);
  const [form] = Form.useForm<Values>();
  const signedIn = useSignedIn();
  const send = useMutation({ mutationFn: authApi.sendCode });
  const login = useMutation({ mutationFn: authApi.codeLogin, onSuccess: signedIn });
  const label = t(`fields.${channel}`);

  const sendCode = async () => {
    const values = await form.validateFields([channel]);
    login.reset();
    const data = await send.mutateAsync({ [channel]: values[channel].trim() });
    return data?.resendAfterS;
  };

  const submit = (v: Values) => {
    send.reset();
    login.mutate({ [channel]: v[channel].trim(), code: v.code.trim() });
  };

  return (
    <Form<Values> form={form} layout="vertical" initialValues={{ [channel]: initial }} onFinish={submit} requiredMark={false}>
      <FormError error={send.error ?? login.error} testId="signin-error" />
      <Form.Item name={channel} label={label} rules={[rules.required(label), channel === 'email' ? rules.email : rules.phone]}>
        <Input autoComplete={channel === 'email' ? 'email' : 'tel'} data-testid={`signin-${channel}`} />
      </Form.Item>
      <Form.Item label={t('fields.code')} required>
        <Flex gap="small">
          <Form.Item name="code" noStyle rules={[rules.required(t('fields.code')), rules.code]}>
            <Input inputMode="numeric" maxLength={6} autoComplete="one-time-code" data-testid="signin-code" />
          </Form.Item>
          <CountdownButton onSend={sendCode} data-testid="signin-send-code">
            {t('signin.sendCode')}
          </CountdownButton>
        </Flex>
      </Form.Item>
      {send.isSuccess && <p data-testid="signin-code-sent">{t('signin.codeSent')}</p>}
      <Button type="primary" htmlType="submit" block loading={login.isPending} data-testid="signin-submit">
        {t('signin.submit')}
      </Button>
    </Form>
  );
}
