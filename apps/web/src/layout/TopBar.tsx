import { Link, useLocation, useNavigate } from 'react-router-dom';
import { Button, Dropdown, Layout } from 'antd';
import { ArrowLeftOutlined, DownOutlined, MenuFoldOutlined, MenuUnfoldOutlined } from '@ant-design/icons';
import { useTranslation } from '@/i18n';
import { useSession } from '@/stores/session';
import { backLinkFor } from './backLink';
import { useSignOut } from './useSignOut';

interface Props {
  collapsed?: boolean;
  onToggle?: () => void;
}

export function TopBar({ collapsed, onToggle }: Props) {
  const { t } = useTranslation('layout');
  const { pathname } = useLocation();
  const navigate = useNavigate();
  const user = useSession((s) => s.user);
  const signOut = useSignOut();
  const back = backLinkFor(pathname, user?.role);

  return (
    <Layout.Header className="loupe-header">
      {onToggle && (
        <Button
          type="text"
          data-testid="sidebar-toggle"
          aria-label={t(collapsed ? 'sidebar.expand' : 'sidebar.collapse')}
          icon={collapsed ? <MenuUnfoldOutlined /> : <MenuFoldOutlined />}
          onClick={onToggle}
        />
      )}
      {back && (
        <Link to={back.to} className="loupe-back" data-testid="back-link">
          <ArrowLeftOutlined /> {t(back.label)}
        </Link>
      )}
      <div className="loupe-header-spacer" />
      {user && (
        <Dropdown
          trigger={['click', 'hover']}
          menu={{
            items: [
              { key: 'usage', label: <span data-testid="menu-usage-link">{t('userMenu.usage')}</span> },
              { key: 'signout', label: <span data-testid="sign-out">{t('userMenu.signOut')}</span> },
            ],
            onClick: ({ key }) => (key === 'usage' ? navigate('/usage') : void signOut()),
          }}
        >
          <Button type="text" data-testid="user-menu">
            {user.email} <DownOutlined />
          </Button>
        </Dropdown>
      )}
    </Layout.Header>
  );
}
