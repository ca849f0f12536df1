import { Button, Col, Form, Input, Result, Row, Spin } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router-dom';
import type { ProfileUpdateBody } from '@loupe/contracts';
import { useProfile, useUpdateProfile } from '@/pages/account/profileApi';
import { useSession } from '@/stores/session';
import { AuthCard } from '../shared/AuthCard';
import { FormError } from '../shared/FormError';
import { formRules } from '../shared/rules';
import { homeFor } from '../shared/useSignedIn';

type Values = Required<Pick<ProfileUpdateBody, 'firstName' | 'lastName' | 'company' | 'mobile'>>;

/**
 * /finish-register-info: an account that did not come through the registration form (single sign-on, created
 * by an administrator) fills in the registration fields it lacks, through PUT /api/profile.
 */
export default function FinishRegisterInfo() {
  const { t } = useTranslation('auth');
  const r = formRules(t);
  const navigate = useNavigate();
  const signedIn = useSession((s) => !!s.token);
  const role = useSession((s) => s.user?.role ?? '');
  const profile = useProfile(signedIn);
  const update = useUpdateProfile();

  if (!signedIn) {
    return (
      <AuthCard title={t('finish.title')} testId="finish-register-info">
        <Result
          status="warning"
          title={t('finish.signInFirst')}
          extra={
            <Link to="/signin">
              <Button type="primary" data-testid="finish-signin">
                {t('common.backToSignIn')}
              </Button>
            </Link>
          }
        />
      </AuthCard>
    );
  }
  if (!profile.data) {
    return (
      <AuthCard title={t('finish.title')} testId="finish-register-info">
        {profile.isError ? <FormError error={profile.error} testId="finish-error" /> : <Spin />}
      </AuthCard>
    );
  }

  const label = (f: string) => t(`fields.${f}`);
  const text = (f: string) => [r.required(label(f)), r.textMax(label(f)), r.name(label(f))];
  const p = profile.data;
  const submit = (v: Values) =>
    update.mutate(
      { firstName: v.firstName.trim(), lastName: v.lastName.trim(), company: v.company.trim(), mobile: v.mobile.trim() },
      { onSuccess: () => navigate(p.hasPassword ? homeFor(role) : '/set-password', { replace: true }) },
    );

  return (
    <AuthCard title={t('finish.title')} subtitle={t('finish.intro', { email: p.email })} testId="finish-register-info">
      <Form<Values>
        layout="vertical"
        initialValues={{ firstName: p.firstName, lastName: p.lastName, company: p.company, mobile: p.mobile }}
        onFinish={submit}
      >
        <FormError error={update.error} testId="finish-error" />
        <Row gutter={12}>
          <Col span={12}>
            <Form.Item name="firstName" label={label('firstName')} rules={text('firstName')}>
              <Input data-testid="finish-firstName" />
            </Form.Item>
          </Col>
          <Col span={12}>
            <Form.Item name="lastName" label={label('lastName')} rules={text('lastName')}>
              <Input data-testid="finish-lastName" />
            </Form.Item>
          </Col>
        </Row>
        <Form.Item name="company" label={label('company')} rules={text('company')}>
          <Input data-testid="finish-company" />
        </Form.Item>
        <Form.Item name="mobile" label={label('phone')} rules={[...text('phone'), r.phone]}>
          <Input data-testid="finish-mobile" />
        </Form.Item>
        <Button type="primary" htmlType="submit" block loading={update.isPending} data-testid="finish-submit">
          {t('finish.submit')}
        </Button>
      </Form>
    </AuthCard>
  );
}
