import type { ReactNode } from 'react';
import { Link, Navigate, useLocation } from 'react-router-dom';
import { Alert } from 'antd';
import type { ModelType } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { stepPath } from '@/routes/steps';
import { MODEL_LIST_PATH } from '@/routes/table';
import { useProject } from '@/stores/project';

interface Props {
  step: 'test' | 'testImage';
  children: (project: { id: string; type: ModelType }) => ReactNode;
}

/**
 * A typed step's route: without an open model, a link to the list; a model opened on another type's route
 * (an old bookmark) goes to its own, keeping the query. The children are keyed by model by the caller.
 */
export function ProjectRoute({ step, children }: Props) {
  const { t } = useTranslation('testing');
  const project = useProject((s) => s.project);
  const { pathname, search } = useLocation();
  if (!project) {
    return <Alert type="info" showIcon title={t('noProject')} action={<Link to={MODEL_LIST_PATH}>{t('toModels')}</Link>} data-testid="test-no-project" />;
  }
  const own = stepPath(step, project.type);
  if (pathname.replace(/\/+$/, '').toLowerCase() !== own.toLowerCase()) return <Navigate to={`${own}${search}`} replace />;
  return <>{children(project)}</>;
}
