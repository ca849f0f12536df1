import { Form, Input } from 'antd';
import { useTranslation } from 'react-i18next';
import { confirmRules, newPasswordRules } from './rules';

/** New password + confirmation, with the §5 rules; drop inside any Ant Design Form. */
export function NewPasswordFields({ testPrefix }: { testPrefix: string }) {
  const { t } = useTranslation('auth');
  const label = t('fields.newPassword');
  const confirm = t('fields.confirmPassword');
  return (
    <>
      <Form.Item name="password" label={label} rules={newPasswordRules(t, label)} hasFeedback>
        <Input.Password autoComplete="new-password" data-testid={`${testPrefix}-password`} />
      </Form.Item>
      <Form.Item
        name="confirmPassword"
        label={confirm}
        dependencies={['password']}
        rules={confirmRules(t, confirm)}
        hasFeedback
      >
        <Input.Password autoComplete="new-password" data-testid={`${testPrefix}-confirmPassword`} />
      </Form.Item>
    </>
  );
}
