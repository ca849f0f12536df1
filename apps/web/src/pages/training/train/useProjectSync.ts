import { useEffect } from 'react';
import type { TrainingData } from '@loupe/contracts';
import { useProject, versionOf, DEFAULT_VERSION, type ProjectData } from '@/stores/project';
import { isActive } from '../trainingApi';

/**
 * Keeps the open project in step with its trainings: status 'training' while one is active (the sidebar
 * locks its menus and the guard keeps the user on /train, SPEC §2), back to 'no' once none is; the Model and
 * Deploy groups once a first training exists; and a model version that names a succeeded training (the
 * finetuned_{version} tag), v0 while there is none. A 'testing' status belongs to the test pages: left alone.
 */
export function useProjectSync(trainings: readonly TrainingData[] | undefined) {
  const project = useProject((s) => s.project);
  const versions = useProject((s) => s.versions);
  const updateProject = useProject((s) => s.updateProject);
  const setVersion = useProject((s) => s.setVersion);

  useEffect(() => {
    if (!trainings || !project) return;
    const running = trainings.some((t) => isActive(t.status));
    const patch: Partial<ProjectData> = {};
    if (running && project.projectStatus === 'no') patch.projectStatus = 'training';
    if (!running && project.projectStatus === 'training') patch.projectStatus = 'no';
    if (trainings.length > 0 && !project.hasTraining) patch.hasTraining = true;
    if (Object.keys(patch).length > 0) updateProject(patch);

    const current = versionOf(versions, project.code);
    const succeeded = trainings.filter((t) => t.status === 'succeeded').sort((a, b) => b.serialNo - a.serialNo);
    // A version the user chose stays while it is a succeeded training; otherwise the latest succeeded one.
    if (succeeded.some((t) => t.version === current)) return;
    const fallback = succeeded[0]?.version ?? DEFAULT_VERSION;
    if (fallback !== current) setVersion(project.code, fallback);
  }, [trainings, project, versions, updateProject, setVersion]);
}
