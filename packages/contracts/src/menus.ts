/**
 * Menus (SPEC §2, §3 menu entry). Type 1 menus come from the server per role; types 2 and 8 are the
 * project sidebars of synthetic-data and model-training projects. `permissionName` is also the i18n key
 * (namespace `menu`).
 */
export interface MenuEntry {
  id: string;
  icon: string;
  permissionName: string;
  route: string;
  children?: MenuEntry[];
}

export const SidebarTypes = { permission: 1, synthetic: 2, training: 8 } as const;
export type SidebarType = (typeof SidebarTypes)[keyof typeof SidebarTypes];

const leaf = (id: string, icon: string, route: string): MenuEntry => ({ id, icon, permissionName: id, route });

/** Type 1 groups. The group `modelDevelopment` is never shown (SPEC §2). */
export const USER_MENUS: MenuEntry[] = [
  {
    id: 'models',
    icon: 'AppstoreOutlined',
    permissionName: 'models',
    route: '',
    children: [leaf('agentList', 'AppstoreOutlined', '/agentList'), leaf('usage', 'BarChartOutlined', '/usage')],
  },
  {
    id: 'secondaryDevelopment',
    icon: 'CodeOutlined',
    permissionName: 'secondaryDevelopment',
    route: '',
    children: [
      leaf('repeatDev', 'ApartmentOutlined', '/repeatDev'),
      leaf('sdkManagement', 'CodeOutlined', '/sdkManagement'),
      leaf('client', 'DesktopOutlined', '/client'),
    ],
  },
  {
    id: 'modelDevelopment',
    icon: 'ToolOutlined',
    permissionName: 'modelDevelopment',
    route: '',
    children: [leaf('modelDevelopmentTool', 'ToolOutlined', '/modelDevelopmentTool')],
  },
  {
    id: 'account',
    icon: 'UserOutlined',
    permissionName: 'account',
    route: '',
    children: [leaf('profile', 'UserOutlined', '/profile'), leaf('changePassword', 'LockOutlined', '/changePassword')],
  },
];

/** Back-office entries; those in PRIVATE_HIDDEN_BACKSTAGE are hidden in private deployments. */
export const ADMIN_MENUS: MenuEntry[] = [
  {
    id: 'backStage',
    icon: 'SettingOutlined',
    permissionName: 'backStage',
    route: '',
    children: [
      leaf('backStageManagement', 'DashboardOutlined', '/backStageManagement'),
      leaf('userManagement', 'TeamOutlined', '/userManagement'),
      leaf('organizationManagement', 'ClusterOutlined', '/organizationManagement'),
      leaf('roleManagement', 'SafetyOutlined', '/roleManagement'),
      leaf('authorization', 'KeyOutlined', '/authorization'),
      leaf('analysis', 'LineChartOutlined', '/analysis'),
      leaf('adjustmentRecord', 'HistoryOutlined', '/adjustmentRecord'),
      leaf('enumManagement', 'UnorderedListOutlined', '/enumManagement'),
      leaf('operatorManagement', 'FunctionOutlined', '/operatorManagement'),
      leaf('modellabel', 'TagsOutlined', '/modellabel'),
      leaf('casequery', 'FileSearchOutlined', '/casequery'),
      leaf('communityProjectManagement', 'GlobalOutlined', '/communityProjectManagement'),
    ],
  },
];

export const HIDDEN_MENU_GROUPS = ['modelDevelopment'] as const;
/** Tuning records, enumeration management, operator management and licence management (SPEC §2). */
export const PRIVATE_HIDDEN_BACKSTAGE = ['adjustmentRecord', 'enumManagement', 'operatorManagement', 'authorization'] as const;

/** Type 8 (model training) project sidebar: Data | Agents | Model | Deploy, split at 2, 3 and 6. */
export const TRAINING_STEPS = ['gallery', 'mark', 'agent', 'parameter', 'train', 'model', 'testImage', 'test', 'download'] as const;
export const TRAINING_SPLITS = [2, 3, 6] as const;
export const TRAINING_GROUPS = ['data', 'agents', 'model', 'deploy'] as const;

/** Type 2 (synthetic data) project sidebar: Synthesis (first six) | Download. */
export const SYNTHETIC_STEPS = ['mark', 'background', 'preview', 'curate', 'generate', 'synthetic', 'download'] as const;
export const SYNTHETIC_SPLIT = 6;
export const SYNTHETIC_GROUPS = ['synthesis', 'download'] as const;

/** Steps whose page is the step name plus the lowercased model type (SPEC §2). */
export const TYPED_STEPS = ['mark', 'background', 'preview', 'curate', 'generate', 'synthetic', 'train', 'testImage', 'test'] as const;

/** Project statuses (SPEC §4): menus lock while training or testing. */
export const ProjectStatuses = ['no', 'training', 'testing'] as const;
export type ProjectStatus = (typeof ProjectStatuses)[number];

/** Model types (SPEC §3) with the sidebar each uses. */
export const ModelTypes = {
  OCR: { sidebarType: 8, segment: 'ocr' },
  DETECTION: { sidebarType: 8, segment: 'detection' },
  SEGMENTATION: { sidebarType: 8, segment: 'segmentation' },
  classification: { sidebarType: 8, segment: 'classification' },
  MEASURE: { sidebarType: 8, segment: 'measure' },
  FPG: { sidebarType: 2, segment: 'fpg' },
  RPG: { sidebarType: 2, segment: 'rpg' },
} as const;
export type ModelType = keyof typeof ModelTypes;
