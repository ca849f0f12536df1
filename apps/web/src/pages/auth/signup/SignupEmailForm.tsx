import { Button, Col, Form, Input, Row, Select } from 'antd';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router-dom';
import { Errors, type RegisterBody } from '@loupe/contracts';
import { isApiError } from '@/api/client';
import { currentLanguage } from '@/i18n';
import { authApi } from '../shared/authApi';
import { countryOptions } from '../shared/countries';
import { FormError } from '../shared/FormError';
import { confirmRules, formRules, newPasswordRules } from '../shared/rules';

type Values = Omit<RegisterBody, 'language'>;

/** Server refusals that belong to one field are shown under that field rather than above the form. */
const FIELD_OF_CODE: Partial<Record<number, keyof Values>> = {
  [Errors.emailRegistered.code]: 'email',
  [Errors.emailFormat.code]: 'email',
  [Errors.phoneRegistered.code]: 'phone',
  [Errors.phoneFormat.code]: 'phone',
  [Errors.passwordLength.code]: 'password',
  [Errors.passwordChars.code]: 'password',
  [Errors.passwordsDoNotMatch.code]: 'confirmPassword',
};

const trimmed = (v: Values): Values =>
  Object.fromEntries(
    Object.entries(v).map(([k, x]) => [k, typeof x === 'string' && !k.toLowerCase().includes('password') ? x.trim() : x]),
  ) as Values;

/** The SPEC §3 registration form with the §5 rules; the server checks the same rules again. */
export function SignupEmailForm() {
  const { t } = useTranslation('auth');
  const r = formRules(t);
  const [form] = Form.useForm<Values>();
  const navigate = useNavigate();
  const register = useMutation({
    mutationFn: (v: Values) => authApi.register({ ...trimmed(v), language: currentLanguage() }),
    onSuccess: (_data, v) => navigate(`/send-verify?email=${encodeURIComponent(v.email.trim())}`),
    onError: (e) => {
      const field = isApiError(e) ? FIELD_OF_CODE[e.code] : undefined;
      if (field) form.setFields([{ name: field, errors: [e.message] }]);
    },
  });
  const fieldError = isApiError(register.error) && FIELD_OF_CODE[register.error.code] !== undefined;
  const label = (f: string) => t(`fields.${f}`);
  const text = (f: string, required = true) => [...(required ? [r.required(label(f))] : []), r.textMax(label(f)), r.name(label(f))];

  return (
    <Form<Values> form={form} layout="vertical" onFinish={(v) => register.mutate(v)} scrollToFirstError>
      <FormError error={fieldError ? null : register.error} testId="signup-error" />
      <Row gutter={12}>
        <Col span={12}>
          <Form.Item name="firstName" label={label('firstName')} rules={text('firstName')}>
            <Input autoComplete="given-name" data-testid="signup-firstName" />
          </Form.Item>
        </Col>
        <Col span={12}>
          <Form.Item name="lastName" label={label('lastName')} rules={text('lastName')}>
            <Input autoComplete="family-name" data-testid="signup-lastName" />
          </Form.Item>
        </Col>
      </Row>
      <Form.Item name="email" label={label('email')} rules={[...text('email'), r.email]}>
        <Input autoComplete="email" data-testid="signup-email" />
      </Form.Item>
      <Form.Item name="password" label={label('password')} rules={newPasswordRules(t, label('password'))} hasFeedback>
        <Input.Password autoComplete="new-password" data-testid="signup-password" />
      </Form.Item>
      <Form.Item
        name="confirmPassword"
        label={label('confirmPassword')}
        dependencies={['password']}
        rules={confirmRules(t, label('confirmPassword'))}
        hasFeedback
      >
        <Input.Password autoComplete="new-password" data-testid="signup-confirmPassword" />
      </Form.Item>
      <Form.Item name="company" label={label('company')} rules={text('company')}>
        <Input autoComplete="organization" data-testid="signup-company" />
      </Form.Item>
      <Form.Item name="phone" label={label('phone')} rules={[...text('phone'), r.phone]}>
        <Input autoComplete="tel" data-testid="signup-phone" />
      </Form.Item>
      <Form.Item name="country" label={label('country')} rules={[r.required(label('country'))]}>
        <Select
          showSearch={{ optionFilterProp: 'label' }}
          options={countryOptions(currentLanguage())}
          placeholder={t('signup.chooseCountry')}
          data-testid="signup-country"
        />
      </Form.Item>
      <Form.Item name="jobTitle" label={label('jobTitle')} rules={text('jobTitle', false)}>
        <Input autoComplete="organization-title" data-testid="signup-jobTitle" />
      </Form.Item>
      <Button type="primary" htmlType="submit" block loading={register.isPending} data-testid="signup-submit">
        {t('signup.submit')}
      </Button>
    </Form>
  );
}
