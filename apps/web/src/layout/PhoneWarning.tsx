import { useEffect, useState } from 'react';
import { Button } from 'antd';
import { MobileOutlined } from '@ant-design/icons';
import { useTranslation } from '@/i18n';
import { local } from '@/stores/storage';

/** Local-storage key: the user chose to go on with a narrow screen; asked once per browser, not on every reload. */
export const PHONE_WARNING_DISMISSED_KEY = 'phoneWarningDismissed';

const isPortrait = () => window.innerHeight > window.innerWidth;

/** The platform is built for wide screens; portrait windows get a warning the user may dismiss for good. */
export function PhoneWarning() {
  const { t } = useTranslation('layout');
  const [portrait, setPortrait] = useState(isPortrait);
  const [dismissed, setDismissed] = useState(() => local.get(PHONE_WARNING_DISMISSED_KEY) === '1');
  const dismiss = () => {
    local.set(PHONE_WARNING_DISMISSED_KEY, '1');
    setDismissed(true);
  };

  useEffect(() => {
    const onResize = () => setPortrait(isPortrait());
    window.addEventListener('resize', onResize);
    return () => window.removeEventListener('resize', onResize);
  }, []);

  if (!portrait || dismissed) return null;
  return (
    <div className="loupe-phone-warning" data-testid="phone-warning" role="alertdialog">
      <MobileOutlined style={{ fontSize: 48 }} />
      <p>{t('phoneWarning.text')}</p>
      <Button onClick={dismiss} data-testid="phone-warning-dismiss">
        {t('phoneWarning.continue')}
      </Button>
    </div>
  );
}
