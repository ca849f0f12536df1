import { Outlet } from 'react-router-dom';
import { Layout } from 'antd';
import { useRootFontSize } from './useRootFontSize';
import { useSession } from '@/stores/session';
import { Logo } from './Logo';
import { TopBar } from './TopBar';

/** Full-width pages without the sidebar: the model list, usage, marketing and info pages. */
export function StandaloneLayout() {
  const signedIn = useSession((s) => Boolean(s.token));
  useRootFontSize(false);
  return (
    <Layout className="loupe-standalone-layout" data-testid="standalone-layout">
      <div className="loupe-standalone-top">
        <Logo />
        {signedIn && <TopBar />}
      </div>
      <Layout.Content className="loupe-content">
        <Outlet />
      </Layout.Content>
    </Layout>
  );
}
