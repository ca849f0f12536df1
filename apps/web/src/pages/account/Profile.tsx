import { Alert, Button, Card, Col, Descriptions, Form, Input, Row, Select, Spin, Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import { LANGUAGES, type Language, type ProfileData, type ProfileUpdateBody } from '@loupe/contracts';
import { isApiError } from '@/api/client';
import { setLanguage } from '@/i18n';
import { LANGUAGE_NAMES } from '@/layout/languageRoute';
import { FormError } from '@/pages/auth/shared/FormError';
import { formRules } from '@/pages/auth/shared/rules';
import { useNotify } from '@/pages/auth/shared/useNotify';
import { useProfile, useUpdateProfile } from './profileApi';

type Values = Required<Omit<ProfileUpdateBody, 'trainingPriority' | 'language'>>;

const editable = (p: ProfileData): Values => ({
  firstName: p.firstName,
  lastName: p.lastName,
  company: p.company,
  companyId: p.companyId,
  mobile: p.mobile,
  landline: p.landline,
});

/** /profile (SPEC §3 profile): editable contact fields, read-only account facts, and the language. */
export default function Profile() {
  const { t } = useTranslation('account');
  const r = formRules(t);
  const { message } = useNotify();
  const profile = useProfile();
  const update = useUpdateProfile();

  if (!profile.data) {
    // An error the HTTP client already showed (the relogin dialog) is not repeated behind it.
    return profile.isError && !(isApiError(profile.error) && profile.error.handled) ? (
      <Alert type="error" showIcon title={profile.error.message} data-testid="profile-load-error" />
    ) : (
      <Spin />
    );
  }
  const p = profile.data;
  const label = (f: string) => t(`profile.${f}`);
  const stored = editable(p);
  // A name or company the account already has cannot be blanked (the server refuses), but accounts created
  // without one (the seeded administrator, single sign-on) may still save their other fields.
  const text = (f: keyof Values, required: boolean) => [
    ...(required && stored[f] ? [r.required(label(f))] : []),
    r.textMax(label(f)),
    r.name(label(f)),
  ];
  // Only changed fields are sent, so an untouched empty required field is never submitted.
  const save = (v: Values) => {
    const changed = Object.entries(v)
      .map(([k, x]) => [k, (x ?? '').trim()] as const)
      .filter(([k, x]) => x !== stored[k as keyof Values]);
    if (changed.length === 0) return void message.info(t('profile.unchanged'));
    update.mutate(Object.fromEntries(changed), { onSuccess: () => void message.success(t('profile.saved')) });
  };
  // The language takes effect at once, in the UI and on the account, so mails follow it too.
  const changeLanguage = (language: Language) => {
    void setLanguage(language);
    update.mutate({ language });
  };

  return (
    <Card title={t('profile.title')} style={{ maxWidth: '48rem' }} data-testid="profile-page">
      <Descriptions column={{ xs: 1, sm: 2 }} style={{ marginBottom: '1.5rem' }}>
        <Descriptions.Item label={label('email')}>
          <span data-testid="profile-email">{p.email}</span>
        </Descriptions.Item>
        <Descriptions.Item label={label('account')}>
          <span data-testid="profile-account">{p.account}</span>
        </Descriptions.Item>
        <Descriptions.Item label={label('trainingPriority')}>
          <span data-testid="profile-trainingPriority">{p.trainingPriority}</span>
        </Descriptions.Item>
        <Descriptions.Item label={label('downloadPermission')}>
          <Tag color={p.downloadPermission ? 'green' : 'default'} data-testid="profile-downloadPermission">
            {t(p.downloadPermission ? 'profile.yes' : 'profile.no')}
          </Tag>
        </Descriptions.Item>
        <Descriptions.Item label={label('language')}>
          <Select<Language>
            value={p.language}
            onChange={changeLanguage}
            style={{ minWidth: '9rem' }}
            options={LANGUAGES.map((l) => ({ value: l, label: LANGUAGE_NAMES[l] }))}
            data-testid="profile-language"
          />
        </Descriptions.Item>
      </Descriptions>
      <Form<Values> layout="vertical" initialValues={editable(p)} onFinish={save} key={p.email}>
        <FormError error={update.error} testId="profile-error" />
        <Row gutter={12}>
          <Col xs={24} sm={12}>
            <Form.Item name="firstName" label={label('firstName')} rules={text('firstName', true)}>
              <Input data-testid="profile-firstName" />
            </Form.Item>
          </Col>
          <Col xs={24} sm={12}>
            <Form.Item name="lastName" label={label('lastName')} rules={text('lastName', true)}>
              <Input data-testid="profile-lastName" />
            </Form.Item>
          </Col>
          <Col xs={24} sm={12}>
            <Form.Item name="company" label={label('company')} rules={text('company', true)}>
              <Input data-testid="profile-company" />
            </Form.Item>
          </Col>
          <Col xs={24} sm={12}>
            <Form.Item name="companyId" label={label('companyId')} rules={text('companyId', false)}>
              <Input data-testid="profile-companyId" />
            </Form.Item>
          </Col>
          <Col xs={24} sm={12}>
            <Form.Item name="mobile" label={label('mobile')} rules={[...text('mobile', false), r.phone]}>
              <Input data-testid="profile-mobile" />
            </Form.Item>
          </Col>
          <Col xs={24} sm={12}>
            <Form.Item name="landline" label={label('landline')} rules={[...text('landline', false), r.landline]}>
              <Input data-testid="profile-landline" />
            </Form.Item>
          </Col>
        </Row>
        <Button type="primary" htmlType="submit" loading={update.isPending} data-testid="profile-submit">
          {t('profile.save')}
        </Button>
      </Form>
    </Card>
  );
}
