import { create } from 'zustand';
import { ModelPaths, type ModelData, type ModelType, type ProjectStatus, type SidebarType } from '@loupe/contracts';
import { api } from '@/api/client';
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

/** Whether a status locks the project's menus to its running step (SPEC §4). */
export const isLockedStatus = (status: ProjectStatus | undefined) => status === 'testing' || status === 'training';

/**
 * Ask the server for the open project's status and keep it: a test or training that ended while no page of it
 * was watching must not keep the project locked (issue 31: Test images sent to /test after the test had
 * finished). Resolves with the status, or null when there is no project, another one was opened meanwhile, or
 * the model could not be read (the stored status then stays).
 */
export async function refreshProjectStatus(): Promise<ProjectStatus | null> {
  const asked = getProject();
  if (!asked) return null;
  let model: ModelData;
  try {
    model = await api.get<ModelData>(ModelPaths.one.replace(':modelId', asked.id), { silent: true });
  } catch {
    return null;
  }
  const open = getProject();
  if (open?.id !== asked.id) return null;
  const trained = model.trainId !== null || model.trainingCount > 0;
  if (open.projectStatus !== model.projectStatus || (trained && !open.hasTraining)) {
    useProject.getState().updateProject({ projectStatus: model.projectStatus, ...(trained ? { hasTraining: true } : {}) });
  }
  return model.projectStatus;
}

/** The model version of a project, v0 until one is chosen. */
export function versionOf(versions: Record<string, string>, code: string | undefined): string {
  return (code && versions[code]) || DEFAULT_VERSION;
}
