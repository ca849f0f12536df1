import {
  HIDDEN_MENU_GROUPS,
  PRIVATE_HIDDEN_BACKSTAGE,
  SidebarTypes,
  SYNTHETIC_GROUPS,
  SYNTHETIC_SPLIT,
  SYNTHETIC_STEPS,
  TRAINING_GROUPS,
  TRAINING_SPLITS,
  TRAINING_STEPS,
  type MenuEntry,
  type ProjectStatus,
  type SidebarType,
} from '@loupe/contracts';
import { isProjectPage } from '@/routes/projectPages';
import { stepPath } from '@/routes/steps';

/** One sidebar item; `label` is a key in the `menu` namespace. */
export interface SidebarItem {
  key: string;
  label: string;
  icon: string;
  path: string;
  disabled: boolean;
}
export interface SidebarGroup {
  key: string;
  label: string;
  icon: string;
  items: SidebarItem[];
}

export interface ProjectView {
  type?: string;
  sidebarType?: SidebarType;
  projectStatus?: ProjectStatus;
  hasTraining?: boolean;
}

/** Menus lock while the project trains or tests (SPEC §2, §4). */
export function menusLocked(status: ProjectStatus | undefined): boolean {
  return status === 'training' || status === 'testing';
}

/** Project pages use the project's sidebar; every other page the permission menu (type 1). */
export function sidebarTypeFor(pathname: string, project: ProjectView | null): SidebarType {
  if (project?.sidebarType && isProjectPage(pathname)) return project.sidebarType;
  return SidebarTypes.permission;
}

/** Type 1: the server's menu groups, minus hidden groups and, in private deployments, some back-stage pages. */
export function permissionSidebar(menus: readonly MenuEntry[], isPrivate: boolean): SidebarGroup[] {
  const hiddenGroups: readonly string[] = HIDDEN_MENU_GROUPS;
  const hiddenInPrivate: readonly string[] = PRIVATE_HIDDEN_BACKSTAGE;
  return menus
    .filter((group) => !hiddenGroups.includes(group.permissionName) && !hiddenGroups.includes(group.id))
    .map((group) => ({
      key: group.id,
      label: group.permissionName,
      icon: group.icon,
      items: (group.children ?? [])
        .filter((child) => !(isPrivate && hiddenInPrivate.includes(child.permissionName)))
        .map((child) => ({
          key: child.id,
          label: child.permissionName,
          icon: child.icon,
          path: child.route,
          disabled: false,
        })),
    }))
    .filter((group) => group.items.length > 0);
}

const STEP_ICONS: Record<string, string> = {
  gallery: 'PictureOutlined',
  mark: 'EditOutlined',
  agent: 'RobotOutlined',
  parameter: 'SlidersOutlined',
  train: 'ExperimentOutlined',
  model: 'DeploymentUnitOutlined',
  testImage: 'FileImageOutlined',
  test: 'CheckCircleOutlined',
  download: 'DownloadOutlined',
  background: 'BgColorsOutlined',
  preview: 'EyeOutlined',
  curate: 'FilterOutlined',
  generate: 'ThunderboltOutlined',
  synthetic: 'BlockOutlined',
};

function stepItems(steps: readonly string[], project: ProjectView): SidebarItem[] {
  const disabled = menusLocked(project.projectStatus);
  return steps.map((step) => ({
    key: step,
    label: `steps.${step}`,
    icon: STEP_ICONS[step] ?? 'AppstoreOutlined',
    path: stepPath(step, project.type),
    disabled,
  }));
}

function group(key: string, icon: string, items: SidebarItem[]): SidebarGroup {
  return { key, label: `groups.${key}`, icon, items };
}

/** Type 2: Synthesis (the first six steps) and Download. */
export function syntheticSidebar(project: ProjectView): SidebarGroup[] {
  const [synthesis, download] = SYNTHETIC_GROUPS;
  return [
    group(synthesis, 'ExperimentOutlined', stepItems(SYNTHETIC_STEPS.slice(0, SYNTHETIC_SPLIT), project)),
    group(download, 'DownloadOutlined', stepItems(SYNTHETIC_STEPS.slice(SYNTHETIC_SPLIT), project)),
  ];
}

/** Type 8: Data | Agents | Model | Deploy; Agents hidden in private, Model and Deploy until a first training. */
export function trainingSidebar(project: ProjectView, isPrivate: boolean): SidebarGroup[] {
  const [a, b, c] = TRAINING_SPLITS;
  const [data, agents, model, deploy] = TRAINING_GROUPS;
  const groups = [
    group(data, 'DatabaseOutlined', stepItems(TRAINING_STEPS.slice(0, a), project)),
    group(agents, 'RobotOutlined', stepItems(TRAINING_STEPS.slice(a, b), project)),
    group(model, 'ExperimentOutlined', stepItems(TRAINING_STEPS.slice(b, c), project)),
    group(deploy, 'CloudUploadOutlined', stepItems(TRAINING_STEPS.slice(c), project)),
  ];
  return groups.filter((g) => {
    if (g.key === agents) return !isPrivate;
    if (g.key === model || g.key === deploy) return Boolean(project.hasTraining);
    return true;
  });
}

export interface SidebarInput {
  pathname: string;
  menus: readonly MenuEntry[];
  isPrivate: boolean;
  project: ProjectView | null;
}

/** The groups the sidebar shows for a location. */
export function sidebarFor(input: SidebarInput): SidebarGroup[] {
  const type = sidebarTypeFor(input.pathname, input.project);
  if (type === SidebarTypes.synthetic && input.project) return syntheticSidebar(input.project);
  if (type === SidebarTypes.training && input.project) return trainingSidebar(input.project, input.isPrivate);
  return permissionSidebar(input.menus, input.isPrivate);
}

/** The model version tag, absent for the base version v0 (SPEC §2). */
export function versionTag(version: string | undefined): string | null {
  return !version || version === 'v0' ? null : `finetuned_${version}`;
}
