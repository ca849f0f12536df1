import { useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { Empty, Space } from 'antd';
import { useTranslation } from '@/i18n';
import { useProject } from '@/stores/project';
import { LoadError, Loading, NoProject } from '@/pages/training/shared/PageStates';
import { isTerminalPhase, useAgentRuns } from './agentApi';
import { RunHistory } from './RunHistory';
import { RunView } from './RunView';
import { StartForm } from './StartForm';
import './agent.css';

function AgentWorkspace({ modelId }: { modelId: string }) {
  const { t } = useTranslation('agent');
  const runs = useAgentRuns(modelId);
  const [selectedId, setSelectedId] = useState<number>();
  if (runs.isPending) return <Loading testId="agent-loading" />;
  if (runs.isError) return <LoadError error={runs.error} onRetry={() => void runs.refetch()} testId="agent-load-error" />;

  const items = runs.data.items;
  const active = items.find((run) => !isTerminalPhase(run.phase));
  const shown = items.find((run) => run.id === selectedId) ?? items[0];
  return (
    <Space orientation="vertical" size="middle" style={{ width: '100%' }} data-testid="agent-page">
      {!active && <StartForm modelId={modelId} onStarted={() => setSelectedId(undefined)} />}
      {shown ? (
        <RunView key={shown.id} modelId={modelId} run={shown} />
      ) : (
        <Empty description={t('empty')} data-testid="agent-empty" />
      )}
      {items.length > 1 && <RunHistory runs={items} shownId={shown?.id} onOpen={setSelectedId} />}
    </Space>
  );
}

/** /agent?id=<modelId> (SPEC §2 agent): the open model's when no id is given. */
export default function AgentPage() {
  const [params] = useSearchParams();
  const projectId = useProject((s) => s.project?.id);
  const modelId = params.get('id') ?? projectId;
  if (!modelId || !/^\d+$/.test(modelId)) return <NoProject />;
  return <AgentWorkspace key={modelId} modelId={modelId} />;
}
