import { create } from 'zustand';
import type { ModelType, ProjectStatus, SidebarType } from '@loupe/contracts';
import { local, session } from './storage';

/** The open project (SPEC §3), kept in session storage under `data` so a reload stays in the project. */
export interface ProjectData {
  id: string;
  name: string;
  code: string;
  type: ModelType;
  sidebarType: SidebarType;
  productType?: string;
  projectStatus: ProjectStatus;
  /** Whether a first training exists: the Model and Deploy groups of sidebar type 8 wait for it. */
  hasTraining?: boolean;
}

export const PROJECT_KEY = 'data';
export const VERSIONS_KEY = 'modelVersions';
export const DEFAULT_VERSION = 'v0';

interface ProjectState {
  project: ProjectData | null;
  versions: Record<string, string>;
  setProject: (project: ProjectData | null) => void;
  updateProject: (patch: Partial<ProjectData>) => void;
  setVersion: (code: string, version: string) => void;
}

export const useProject = create<ProjectState>((set, get) => ({
  project: session.getJson<ProjectData>(PROJECT_KEY),
  versions: local.getJson<Record<string, string>>(VERSIONS_KEY) ?? {},
  setProject: (project) => {
    session.setJson(PROJECT_KEY, project);
    set({ project });
  },
  updateProject: (patch) => {
    const current = get().project;
    if (!current) return;
    const project = { ...current, ...patch };
    session.setJson(PROJECT_KEY, project);
    set({ project });
  },
  setVersion: (code, version) => {
    const versions = { ...get().versions, [code]: version };
    local.setJson(VERSIONS_KEY, versions);
    set({ versions });
  },
}));

export const getProject = () => useProject.getState().project;

/** The model version of a project, v0 until one is chosen. */
export function versionOf(versions: Record<string, string>, code: string | undefined): string {
  return (code && versions[code]) || DEFAULT_VERSION;
}
