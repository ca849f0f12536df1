import { useTranslation } from '@/i18n';
import { useDeployment } from '@/app/config';

/** The logo leads to the home site (SPEC §2); private deployments carry their own platform title. */
export function Logo({ collapsed = false }: { collapsed?: boolean }) {
  const { t } = useTranslation('layout');
  const title = useDeployment() === 'private' ? t('platformTitlePrivate') : t('platformTitle');
  return (
    <a className="loupe-logo" href="/" data-testid="logo" title={title}>
      <svg width="28" height="28" viewBox="0 0 32 32" aria-hidden="true">
        <circle cx="13" cy="13" r="9" fill="none" stroke="currentColor" strokeWidth="3" />
        <line x1="20" y1="20" x2="29" y2="29" stroke="currentColor" strokeWidth="4" strokeLinecap="round" />
      </svg>
      {!collapsed && <span className="loupe-logo-text">{title}</span>}
    </a>
  );
}
