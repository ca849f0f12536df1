import type { ComponentType } from 'react';
import { Link, Navigate, useLocation } from 'react-router-dom';
import { Alert } from 'antd';
import { useTranslation } from '@/i18n';
import { stepPath } from '@/routes/steps';
import { MODEL_LIST_PATH } from '@/routes/table';
import { useProject } from '@/stores/project';
import { AnnotatePage } from './annotate/AnnotatePage';
import { ClassifyPage } from './classify/ClassifyPage';
import { markKindOf, type MarkKind } from './modes';
import './mark.css';

/**
 * One labeling route. The route names a kind, the open model decides: a model opened on another type's route
 * (an old bookmark, a hand-typed path) is sent to its own, keeping ?imageId=.
 */
function MarkPage({ kind }: { kind: MarkKind }) {
  const { t } = useTranslation('mark');
  const project = useProject((s) => s.project);
  const { search } = useLocation();
  if (!project) {
    return (
      <Alert type="info" showIcon title={t('noProject')} action={<Link to={MODEL_LIST_PATH}>{t('toModels')}</Link>} data-testid="mark-no-project" />
    );
  }
  const own = markKindOf(project.type);
  if (!own) return <Alert type="info" showIcon title={t('noLabeling')} data-testid="mark-unsupported" />;
  if (own !== kind) return <Navigate to={`${stepPath('mark', project.type)}${search}`} replace />;
  // Keyed by model: nothing of one model's session (editor, history, save queue) survives into another.
  return own === 'classification' ? <ClassifyPage key={project.id} modelId={project.id} /> : <AnnotatePage key={project.id} modelId={project.id} mode={own} />;
}

const routeOf = (kind: MarkKind) => {
  const Page = () => <MarkPage kind={kind} />;
  Page.displayName = `MarkPage(${kind})`;
  return Page;
};

/** Labeling screens by route path (SPEC §2): classification has no type segment, so it is /mark itself. */
export const markPages: Record<string, ComponentType> = {
  '/mark': routeOf('classification'),
  '/mark/detection': routeOf('detection'),
  '/mark/segmentation': routeOf('segmentation'),
  '/mark/ocr': routeOf('ocr'),
  '/mark/measure': routeOf('measure'),
};
