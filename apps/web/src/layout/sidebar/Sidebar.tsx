import { useEffect, useMemo, useState } from 'react';
import { useLocation, useNavigate } from 'react-router-dom';
import { Layout, Menu, Tag, Typography, type MenuProps } from 'antd';
import { useTranslation } from '@/i18n';
import { useSession } from '@/stores/session';
import { useProject, versionOf } from '@/stores/project';
import { useDeployment } from '@/app/config';
import { isProjectPage } from '@/routes/projectPages';
import { LanguageSwitch } from '../LanguageSwitch';
import { Logo } from '../Logo';
import { MenuIcon } from '../icons';
import { sidebarFor, versionTag, type SidebarGroup } from './rules';
import './sidebar.css';

interface Props {
  collapsed: boolean;
  mobile: boolean;
  onNavigate: () => void;
}

// Wide enough for the longest German item ("Entwicklungsaufgaben") at the second level; longer ones wrap.
export const SIDEBAR_WIDTH = 232;
const COLLAPSED_WIDTH = 64;

function selectedKey(groups: SidebarGroup[], pathname: string): string[] {
  const lower = pathname.toLowerCase();
  const hit = groups
    .flatMap((g) => g.items)
    .find((item) => item.path && (lower === item.path.toLowerCase() || lower.startsWith(`${item.path.toLowerCase()}/`)));
  if (hit) return [hit.key];
  // Typed steps: /mark/ocr selects the mark item even when the project type gives a different segment.
  const first = lower.split('/')[1] ?? '';
  const byStep = groups.flatMap((g) => g.items).find((item) => item.key.toLowerCase() === first);
  return byStep ? [byStep.key] : [];
}

export function Sidebar({ collapsed, mobile, onNavigate }: Props) {
  const { t } = useTranslation(['menu', 'layout']);
  const { pathname } = useLocation();
  const navigate = useNavigate();
  const menus = useSession((s) => s.user?.menus);
  const userIsPrivate = useSession((s) => s.user?.isprivate ?? false);
  // Either the deployment or the account can be private (the login response carries isprivate, SPEC §7).
  const isPrivate = useDeployment() === 'private' || userIsPrivate;
  const project = useProject((s) => s.project);
  const versions = useProject((s) => s.versions);

  const groups = useMemo(
    () => sidebarFor({ pathname, menus: menus ?? [], isPrivate, project }),
    [pathname, menus, isPrivate, project],
  );
  const items: MenuProps['items'] = groups.map((group) => ({
    key: `group:${group.key}`,
    label: t(group.label, { defaultValue: group.label }),
    icon: <MenuIcon name={group.icon} />,
    children: group.items.map((item) => ({
      key: item.key,
      label: t(item.label, { defaultValue: item.label }),
      icon: <MenuIcon name={item.icon} />,
      disabled: item.disabled,
      'data-testid': `menu-${item.key}`,
      onClick: () => {
        setFlyouts([]);
        navigate(item.path);
        if (mobile) onNavigate();
      },
    })),
  }));
  // Collapsed (64 px on a desktop, hidden below 992 px) the groups open as flyouts over the page. Only a hover or
  // click opens one, and a navigation closes it: the open-all default of the expanded menu must not turn into
  // flyouts left open over the page after opening a model (issue 31), when the menu is rebuilt for the model.
  const [flyouts, setFlyouts] = useState<string[]>([]);
  const [expandedOpen, setExpandedOpen] = useState<string[] | null>(null);
  const allGroups = groups.map((g) => `group:${g.key}`);
  const groupSet = allGroups.join('|');
  useEffect(() => setFlyouts([]), [pathname, collapsed, mobile]);
  // Another set of groups (a model opened or closed) starts with every group open again.
  useEffect(() => setExpandedOpen(null), [groupSet]);
  const openKeys = collapsed ? (mobile ? [] : flyouts) : (expandedOpen ?? allGroups);
  const onOpenChange = (keys: string[]) => (collapsed ? setFlyouts(keys) : setExpandedOpen(keys));
  const showProject = project && isProjectPage(pathname);
  const tag = showProject ? versionTag(versionOf(versions, project.code)) : null;

  return (
    <Layout.Sider
      data-testid="sidebar"
      className={`loupe-sider${mobile ? ' loupe-sider-mobile' : ''}`}
      width={SIDEBAR_WIDTH}
      collapsedWidth={mobile ? 0 : COLLAPSED_WIDTH}
      collapsed={collapsed}
      trigger={null}
      theme="dark"
    >
      <div className="loupe-sider-inner">
        <Logo collapsed={collapsed} />
        {showProject && !collapsed && (
          <div className="loupe-sider-project" data-testid="sidebar-project">
            <Typography.Text ellipsis style={{ color: 'inherit' }}>
              {project.name}
            </Typography.Text>
            {tag && <Tag color="blue" data-testid="version-tag">{tag}</Tag>}
          </div>
        )}
        <Menu
          className="loupe-sider-menu"
          theme="dark"
          mode="inline"
          inlineIndent={16}
          items={items}
          selectedKeys={selectedKey(groups, pathname)}
          openKeys={openKeys}
          onOpenChange={onOpenChange}
          key={groupSet}
        />
        <div className="loupe-sider-footer">
          <LanguageSwitch compact={collapsed} />
        </div>
      </div>
    </Layout.Sider>
  );
}
