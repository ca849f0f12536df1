import { Button, Form } from 'antd';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import type { SetPasswordBody } from '@loupe/contracts';
import { FormError } from './FormError';
import { NewPasswordFields } from './NewPasswordFields';

interface Props {
  /** POST /api/password/reset (with the mail's token) or /api/password/set (signed in). */
  submit: (body: SetPasswordBody) => Promise<unknown>;
  onDone: () => void;
  testPrefix: string;
}

/** Choose a new password: the two fields, the server's refusal, one button. */
export function NewPasswordForm({ submit, onDone, testPrefix }: Props) {
  const { t } = useTranslation('auth');
  const save = useMutation({ mutationFn: submit, onSuccess: onDone });
  return (
    <Form<SetPasswordBody> layout="vertical" requiredMark={false} onFinish={(v) => save.mutate(v)}>
      <FormError error={save.error} testId={`${testPrefix}-error`} />
      <NewPasswordFields testPrefix={testPrefix} />
      <Button type="primary" htmlType="submit" block loading={save.isPending} data-testid={`${testPrefix}-submit`}>
        {t('password.save')}
      </Button>
    </Form>
  );
}
