import { useCallback } from 'react';
import { useNavigate } from 'react-router-dom';
import {
  ModelTypes,
  SidebarTypes,
  SYNTHETIC_STEPS,
  TRAINING_STEPS,
  type ModelData,
  type SidebarType,
} from '@loupe/contracts';
import { stepPath } from '@/routes/steps';
import { useProject, type ProjectData } from '@/stores/project';

/** The SPEC §3 session project data of a model. */
export function projectDataOf(model: ModelData): ProjectData {
  return {
    id: String(model.id),
    name: model.name,
    code: model.code,
    type: model.type,
    sidebarType: (model.sidebarType || ModelTypes[model.type].sidebarType) as SidebarType,
    productType: model.productType,
    projectStatus: model.projectStatus,
    hasTraining: model.trainId !== null || model.trainingCount > 0,
  };
}

/** A model opens on the first step of its sidebar: the gallery for training types, the reference for synthesis. */
export function firstPageOf(model: Pick<ModelData, 'type'> & { sidebarType?: number }): string {
  const sidebar = model.sidebarType || ModelTypes[model.type].sidebarType;
  const first = sidebar === SidebarTypes.synthetic ? SYNTHETIC_STEPS[0] : TRAINING_STEPS[0];
  return stepPath(first, model.type);
}

/** Open a model: remember it as the session's project (sidebar and guards read it), then go to its first page. */
export function useOpenModel() {
  const setProject = useProject((s) => s.setProject);
  const navigate = useNavigate();
  return useCallback(
    (model: ModelData) => {
      setProject(projectDataOf(model));
      navigate(firstPageOf(model));
    },
    [navigate, setProject],
  );
}
