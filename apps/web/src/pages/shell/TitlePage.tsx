import { Empty, Typography } from 'antd';
import { useTranslation } from '@/i18n';

interface Props {
  /** Key in the `routes` namespace. */
  title: string;
  /** Model-type segment of a typed step (/mark/ocr), shown beside the title. */
  segment?: string;
}

/** A page a later issue builds: its title over an empty state (allowed by the platform-foundation issue). */
export function TitlePage({ title, segment }: Props) {
  const { t } = useTranslation(['routes', 'common']);
  return (
    <div className="loupe-page" data-testid="title-page">
      <Typography.Title level={3} data-testid="page-title">
        {t(title)}
        {segment && <span className="loupe-title-segment"> · {t(`common:modelTypes.${segment}`)}</span>}
      </Typography.Title>
      <Empty description={t('common:comingSoon')} />
    </div>
  );
}
