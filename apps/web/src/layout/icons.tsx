import type { ComponentType } from 'react';
import {
  ApartmentOutlined, AppstoreOutlined, BarChartOutlined, BgColorsOutlined, BlockOutlined, CheckCircleOutlined,
  CloudUploadOutlined, ClusterOutlined, CodeOutlined, DashboardOutlined, DatabaseOutlined, DeploymentUnitOutlined,
  DesktopOutlined, DownloadOutlined, EditOutlined, ExperimentOutlined, EyeOutlined, FileImageOutlined,
  FileSearchOutlined, FilterOutlined, FunctionOutlined, GlobalOutlined, HistoryOutlined, KeyOutlined,
  LineChartOutlined, LockOutlined, PictureOutlined, RobotOutlined, SafetyOutlined, SettingOutlined,
  SlidersOutlined, TagsOutlined, TeamOutlined, ThunderboltOutlined, ToolOutlined, UnorderedListOutlined,
  UserOutlined,
} from '@ant-design/icons';

/** Menu icons arrive as names (server menus, contracts); only these are bundled. */
const ICONS: Record<string, ComponentType> = {
  ApartmentOutlined, AppstoreOutlined, BarChartOutlined, BgColorsOutlined, BlockOutlined, CheckCircleOutlined,
  CloudUploadOutlined, ClusterOutlined, CodeOutlined, DashboardOutlined, DatabaseOutlined, DeploymentUnitOutlined,
  DesktopOutlined, DownloadOutlined, EditOutlined, ExperimentOutlined, EyeOutlined, FileImageOutlined,
  FileSearchOutlined, FilterOutlined, FunctionOutlined, GlobalOutlined, HistoryOutlined, KeyOutlined,
  LineChartOutlined, LockOutlined, PictureOutlined, RobotOutlined, SafetyOutlined, SettingOutlined,
  SlidersOutlined, TagsOutlined, TeamOutlined, ThunderboltOutlined, ToolOutlined, UnorderedListOutlined,
  UserOutlined,
};

export function MenuIcon({ name }: { name: string }) {
  const Icon = ICONS[name] ?? AppstoreOutlined;
  return <Icon />;
}
