import { Flex } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';

type Target = 'signin' | 'signup' | 'forgot';

const routes: Record<Target, string> = { signin: '/signin', signup: '/signup', forgot: '/forget' };

/** The small links under a form that lead to the neighbouring flows. */
export function AuthLinks({ show }: { show: Target[] }) {
  const { t } = useTranslation('auth');
  return (
    <Flex justify="space-between" wrap gap="small" style={{ marginTop: '1rem' }}>
      {show.map((target) => (
        <Link key={target} to={routes[target]} data-testid={`link-${target}`}>
          {t(`links.${target}`)}
        </Link>
      ))}
    </Flex>
  );
}
