import { useEffect, useState } from 'react';
import { Button } from 'antd';
import { MobileOutlined } from '@ant-design/icons';
import { useTranslation } from '@/i18n';

const isPortrait = () => window.innerHeight > window.innerWidth;

/** The platform is built for wide screens; portrait windows get a warning the user may dismiss. */
export function PhoneWarning() {
  const { t } = useTranslation('layout');
  const [portrait, setPortrait] = useState(isPortrait);
  const [dismissed, setDismissed] = useState(false);

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
      <Button onClick={() => setDismissed(true)} data-testid="phone-warning-dismiss">
        {t('phoneWarning.continue')}
      </Button>
    </div>
  );
}
