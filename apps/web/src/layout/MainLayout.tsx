import { useEffect } from 'react';
import { Outlet } from 'react-router-dom';
import { Layout } from 'antd';
import { useRootFontSize } from './useRootFontSize';
import { useDeployment } from '@/app/config';
import { useTranslation } from '@/i18n';
import { Sidebar } from './sidebar/Sidebar';
import { TopBar } from './TopBar';
import { useSidebarState } from './useSidebarState';
import { useProjectStatusWatch } from './useProjectStatusWatch';
import { prefetchMainPages } from './prefetchPages';

/** Sidebar, top bar and main area for the working pages (SPEC §2 layout routes). */
export function MainLayout() {
  const { mobile, collapsed, setCollapsed, toggle } = useSidebarState();
  const cloud = useDeployment() === 'cloud';
  const { t } = useTranslation('layout');
  useRootFontSize(false);
  useProjectStatusWatch();
  useEffect(() => prefetchMainPages(cloud ? 'cloud' : 'private'), [cloud]);

  return (
    <Layout className="loupe-main-layout" data-testid="main-layout" hasSider>
      <Sidebar collapsed={collapsed} mobile={mobile} onNavigate={() => setCollapsed(true)} />
      {mobile && !collapsed && (
        <div className="loupe-sider-overlay" data-testid="sidebar-overlay" onClick={() => setCollapsed(true)} />
      )}
      <Layout className="loupe-content-layout">
        <TopBar collapsed={collapsed} onToggle={toggle} />
        <Layout.Content className="loupe-content">
          <Outlet />
        </Layout.Content>
        {cloud && (
          <Layout.Footer className="loupe-footer" data-testid="copyright">
            {t('copyright', { year: new Date().getFullYear() })}
          </Layout.Footer>
        )}
      </Layout>
    </Layout>
  );
}
