import { useLocation, useNavigate } from 'react-router-dom';
import { Select } from 'antd';
import { GlobalOutlined } from '@ant-design/icons';
import { LANGUAGES, type Language } from '@loupe/contracts';
import { currentLanguage, useTranslation } from '@/i18n';
import { LANGUAGE_NAMES, languageSwitchUrl } from './languageRoute';

/** Language picker; the change goes through /loading-page and comes back to the same place. */
export function LanguageSwitch({ compact = false }: { compact?: boolean }) {
  const navigate = useNavigate();
  const location = useLocation();
  const { t, i18n } = useTranslation('layout');
  const value = i18n.language as Language;

  return (
    <Select<Language>
      data-testid="language-switch"
      aria-label={t('language')}
      size="small"
      value={value ?? currentLanguage()}
      variant="borderless"
      suffixIcon={<GlobalOutlined />}
      popupMatchSelectWidth={false}
      style={{ minWidth: compact ? 56 : 110 }}
      options={LANGUAGES.map((lang) => ({
        value: lang,
        label: <span data-testid={`language-option-${lang}`}>{compact ? lang.toUpperCase() : LANGUAGE_NAMES[lang]}</span>,
      }))}
      onChange={(lang) => {
        if (lang !== value) navigate(languageSwitchUrl(location, lang));
      }}
    />
  );
}
