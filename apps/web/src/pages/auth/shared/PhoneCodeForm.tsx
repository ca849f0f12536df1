import { Flex, Form, Input } from 'antd';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { authApi } from './authApi';
import { CountdownButton } from './CountdownButton';
import { FormError } from './FormError';
import { formRules } from './rules';

/**
 * Phone number + "send code". Phone verification is not available yet: the server answers so, and the
 * answer is shown, which keeps these screens honest and ready for the day SMS lands server-side.
 */
export function PhoneCodeForm({ testPrefix }: { testPrefix: string }) {
  const { t } = useTranslation('auth');
  const r = formRules(t);
  const [form] = Form.useForm<{ phone: string }>();
  const send = useMutation({ mutationFn: authApi.sendCode });

  const onSend = async () => {
    const { phone } = await form.validateFields();
    const data = await send.mutateAsync({ phone: phone.trim() });
    return data?.resendAfterS;
  };

  return (
    <Form form={form} layout="vertical" requiredMark={false}>
      <FormError error={send.error} testId={`${testPrefix}-error`} />
      {send.isSuccess && <p data-testid={`${testPrefix}-sent`}>{t('signin.codeSent')}</p>}
      <Form.Item label={t('fields.phone')} required>
        <Flex gap="small">
          <Form.Item name="phone" noStyle rules={[r.required(t('fields.phone')), r.phone]}>
            <Input autoComplete="tel" data-testid={`${testPrefix}-phone`} />
          </Form.Item>
          <CountdownButton type="primary" onSend={onSend} data-testid={`${testPrefix}-send-code`}>
            {t('signin.sendCode')}
          </CountdownButton>
        </Flex>
      </Form.Item>
    </Form>
  );
}
