import { useMemo, useState, type HTMLAttributes } from 'react';
import { Link } from 'react-router-dom';
import { Alert, App, Button, Card, Empty, Input, Popconfirm, Space, Table, Tag, Tooltip, Typography, type ButtonProps, type TableColumnsType } from 'antd';
import { CheckOutlined, CloseOutlined, EditOutlined } from '@ant-design/icons';
import { VersionNoteMax, type TrainingStatus, type VersionData } from '@loupe/contracts';
import { useShowError } from '@/api/useShowError';
import { useTranslation } from '@/i18n';
import { useProject } from '@/stores/project';
import { LoadError, Loading, NoProject } from '@/pages/training/shared/PageStates';
import { DASH, duration, percent } from '@/pages/training/shared/format';
import { STATUS_COLORS, When } from '@/pages/training/train/VersionTable';
import { HEADLINE, taskOf } from '@/pages/training/shared/tasks';
import { useDeleteVersion, useSetDefault, useSetNote, useVersions } from './versionsApi';
import { MetricsSideBySide } from './MetricsSideBySide';
import './versions.css';


/** Selection 32 + the columns below. */
const COLUMNS_WIDTH = 32 + 130 + 100 + 90 + 80 + 105 + 105 + 85 + 180 + 175;

const usable = (v: VersionData) => v.status === 'succeeded' && v.hasWeights;
const busy = (v: VersionData) => v.status === 'queued' || v.status === 'preparing' || v.status === 'training';

/** The note cell: the note, and a pencil that turns it into a field of at most 100 characters. */
function NoteCell({ modelId, version }: { modelId: string; version: VersionData }) {
  const { t } = useTranslation('versions');
  const showError = useShowError();
  const setNote = useSetNote(modelId);
  const [draft, setDraft] = useState<string | null>(null);
  const save = async () => {
    try {
      await setNote.mutateAsync({ trainingId: version.id, note: draft ?? '' });
      setDraft(null);
    } catch (error) {
      showError(error);
    }
  };
  if (draft === null) {
    return (
      <span className="loupe-version-note">
        <span data-testid={`version-note-${version.id}`}>{version.note || DASH}</span>
        <Button size="small" type="text" icon={<EditOutlined />} aria-label={t('note.edit')} onClick={() => setDraft(version.note)} data-testid={`version-note-edit-${version.id}`} />
      </span>
    );
  }
  return (
    <Space.Compact className="loupe-version-note-edit">
      <Input
        size="small"
        autoFocus
        value={draft}
        maxLength={VersionNoteMax}
        showCount
        onChange={(e) => setDraft(e.target.value)}
        onPressEnter={() => void save()}
        placeholder={t('note.placeholder')}
        data-testid={`version-note-input-${version.id}`}
      />
      <Button size="small" icon={<CheckOutlined />} loading={setNote.isPending} onClick={() => void save()} aria-label={t('note.save')} data-testid={`version-note-save-${version.id}`} />
      <Button size="small" icon={<CloseOutlined />} onClick={() => setDraft(null)} aria-label={t('note.cancel')} />
    </Space.Compact>
  );
}

function Versions({ modelId, type }: { modelId: string; type: string }) {
  const { t } = useTranslation(['versions', 'training', 'models']);
  const { message } = App.useApp();
  const showError = useShowError();
  const list = useVersions(modelId);
  const setDefault = useSetDefault(modelId);
  const remove = useDeleteVersion(modelId);
  const [chosen, setChosen] = useState<number[]>([]);
  const items = useMemo(() => list.data?.items ?? [], [list.data]);
  const task = taskOf(items[0]?.task, type);
  const picked = items.filter((v) => chosen.includes(v.id));

  if (list.isPending) return <Loading testId="versions-loading" />;
  if (list.isError) return <LoadError error={list.error} onRetry={() => void list.refetch()} testId="versions-error" />;

  const inUse = items.find((v) => v.inUse);
  const usableCount = items.filter(usable).length;

  const makeDefault = async (v: VersionData | null) => {
    try {
      await setDefault.mutateAsync(v?.id ?? null);
      void message.success(v ? t('default.set', { version: v.version }) : t('default.cleared'));
    } catch (error) {
      showError(error);
    }
  };
  const onDelete = async (v: VersionData) => {
    try {
      await remove.mutateAsync(v.id);
      setChosen((c) => c.filter((id) => id !== v.id));
      void message.success(t('delete.done', { version: v.version }));
    } catch (error) {
      showError(error);
    }
  };

  const columns: TableColumnsType<VersionData> = [
    {
      title: t('col.version'),
      dataIndex: 'version',
      width: 130,
      render: (version: string, v) => (
        <div>
          <Space size={4} wrap>
            <span data-testid={`version-name-${v.id}`}>{version}</span>
            {v.isDefault && (
              <Tag color="blue" data-testid={`version-default-${v.id}`}>
                {t('default.tag')}
              </Tag>
            )}
            {v.inUse && !v.isDefault && (
              <Tooltip title={t('inUse.latestHint')}>
                <Tag data-testid={`version-in-use-${v.id}`}>{t('inUse.tag')}</Tag>
              </Tooltip>
            )}
          </Space>
          {/* The task under the version: one column less, so the table fits a 1440 px window. */}
          <Typography.Text type="secondary" className="loupe-version-task" data-testid={`version-task-${v.id}`}>
            {t(`task.${v.task}`, { defaultValue: v.task })}
          </Typography.Text>
        </div>
      ),
    },
    {
      title: t('col.status'),
      dataIndex: 'status',
      width: 100,
      render: (s: TrainingStatus, v) => (
        <Tooltip title={v.error ?? undefined}>
          <Tag color={STATUS_COLORS[s]} data-testid={`version-status-${v.id}`}>
            {t(`models:trainingStatus.${s}`)}
          </Tag>
        </Tooltip>
      ),
    },
    {
      title: t('col.metric', { metric: t(`training:headlineShort.${task}`) }),
      key: 'metric',
      width: 90,
      render: (_, v) => <span data-testid={`version-metric-${v.id}`}>{percent(v.accuracy ?? v.summary?.[HEADLINE[taskOf(v.task)]])}</span>,
    },
    { title: t('col.images'), key: 'images', width: 80, render: (_, v) => `${v.labeledImages} / ${v.totalImages}` },
    { title: t('col.start'), dataIndex: 'startedAt', width: 105, render: (v: string) => <When iso={v} /> },
    { title: t('col.end'), dataIndex: 'endedAt', width: 105, render: (v: string | null) => <When iso={v} /> },
    { title: t('col.duration'), dataIndex: 'durationS', width: 85, render: (v: number | null) => duration(v) },
    { title: t('col.note'), key: 'note', width: 180, render: (_, v) => <NoteCell modelId={modelId} version={v} /> },
    {
      title: t('col.actions'),
      key: 'actions',
      width: 175,
      // Pinned: below 1440 px windows the table scrolls, and the actions stay in reach.
      fixed: 'right',
      render: (_, v) => (
        <Space size={4} wrap>
          {v.isDefault ? (
            <Button size="small" onClick={() => void makeDefault(null)} loading={setDefault.isPending && setDefault.variables === null} data-testid={`version-undefault-${v.id}`}>
              {t('default.clear')}
            </Button>
          ) : (
            <Tooltip title={usable(v) ? undefined : t('default.notUsable')}>
              <Button
                size="small"
                type="primary"
                ghost
                disabled={!usable(v)}
                onClick={() => void makeDefault(v)}
                loading={setDefault.isPending && setDefault.variables === v.id}
                data-testid={`version-make-default-${v.id}`}
              >
                {t('default.make')}
              </Button>
            </Tooltip>
          )}
          <Popconfirm
            title={t('delete.confirmTitle', { version: v.version })}
            description={v.inUse && usableCount === 1 ? t('delete.lastUsable') : v.isDefault ? t('delete.isDefault') : t('delete.confirm')}
            okText={t('delete.ok')}
            okButtonProps={{ danger: true, 'data-testid': `version-delete-ok-${v.id}` } as ButtonProps}
            cancelText={t('delete.cancel')}
            onConfirm={() => onDelete(v)}
            disabled={busy(v)}
          >
            <Tooltip title={busy(v) ? t('delete.busy') : undefined}>
              <Button size="small" danger disabled={busy(v)} loading={remove.isPending && remove.variables === v.id} data-testid={`version-delete-${v.id}`}>
                {t('delete.button')}
              </Button>
            </Tooltip>
          </Popconfirm>
        </Space>
      ),
    },
  ];

  const two = picked.length === 2 ? [...picked].sort((a, b) => a.serialNo - b.serialNo) : null;
  return (
    <Space orientation="vertical" size="middle" style={{ width: '100%' }} data-testid="versions-page">
      <Alert
        type="info"
        showIcon
        data-testid="versions-in-use"
        data-training-id={inUse?.id ?? ''}
        title={inUse ? t(list.data.defaultTrainingId ? 'inUse.chosen' : 'inUse.latest', { version: inUse.version }) : t('inUse.none')}
        description={t('intro')}
      />
      <Card
        size="small"
        title={t('title')}
        extra={
          <Space wrap>
            <Typography.Text type="secondary" data-testid="versions-chosen-count">
              {t('compare.chosen', { count: picked.length })}
            </Typography.Text>
            {two ? (
              <Link to={`/train2?a=${two[0]!.id}&b=${two[1]!.id}`} data-testid="versions-compare-curves">
                {t('compare.curves')}
              </Link>
            ) : (
              <Tooltip title={t('compare.pickTwo')}>
                <Typography.Text type="secondary">{t('compare.curves')}</Typography.Text>
              </Tooltip>
            )}
          </Space>
        }
      >
        <Table<VersionData>
          rowKey="id"
          size="small"
          tableLayout="fixed"
          className="loupe-versions-table"
          data-testid="versions-table"
          columns={columns}
          dataSource={items}
          rowSelection={{ columnWidth: 32, selectedRowKeys: chosen, onChange: (keys) => setChosen(keys.map(Number)), getCheckboxProps: (v) => ({ 'data-testid': `version-pick-${v.id}` }) as object }}
          pagination={items.length > 10 ? { pageSize: 10, showSizeChanger: false } : false}
          // The columns' widths: narrower than this, the table scrolls and the page does not.
          scroll={{ x: COLUMNS_WIDTH }}
          locale={{ emptyText: <Empty description={t('empty')} data-testid="versions-empty" /> }}
          onRow={(v) => ({ 'data-testid': `version-row-${v.id}`, 'data-version': v.version }) as HTMLAttributes<HTMLElement>}
        />
      </Card>
      {picked.length > 0 && <MetricsSideBySide versions={[...picked].sort((a, b) => a.serialNo - b.serialNo)} />}
    </Space>
  );
}

/** /modelManagement (SPEC §2): the open model's versions: default version, notes, deletion, metrics side by side. */
export default function ModelManagementPage() {
  const project = useProject((s) => s.project);
  if (!project) return <NoProject />;
  return <Versions key={project.id} modelId={project.id} type={project.type} />;
}
