import { useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { Button, Card, Input, Select, Space, Table, Tag, Typography, type TableColumnsType, type TableProps } from 'antd';
import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import {
  Limits,
  TrainingStatuses,
  type ModelData,
  type ModelListQuery,
  type ModelSort,
  type ModelType,
  type TrainingStatus,
} from '@loupe/contracts';
import { currentLanguage, useTranslation } from '@/i18n';
import { useNotify } from '@/pages/auth/shared/useNotify';
import { CreateModelDialog } from './CreateModelDialog';
import { useDeleteModel, useModels } from './modelsApi';
import { MODEL_TYPES } from './modelTypes';
import { useOpenModel } from './openModel';
import { useProject } from '@/stores/project';

const PAGE_SIZE = 10;

const STATUS_COLOR: Record<TrainingStatus, string> = {
  notTrained: 'default',
  queued: 'blue',
  preparing: 'blue',
  training: 'processing',
  succeeded: 'green',
  failed: 'red',
  cancelled: 'orange',
};

/**
 * Names wrap between words only: Typography's word-break (break-word) let the table squeeze the column below its
 * longest word and cut names mid-word (issue 31).
 */
const NAME_STYLE = { wordBreak: 'normal', overflowWrap: 'normal' } as const;

/** Which sort key each sortable column sends. */
const SORT_OF: Record<string, ModelSort> = { name: 'name', createdAt: 'created', totalImages: 'images' };

/** /agentList: the user's models, filtered, sorted and paged on the server (SPEC §2 model list). */
export default function ModelList() {
  const { t } = useTranslation('models');
  const { message, modal } = useNotify();
  const [params, setParams] = useSearchParams();
  const [query, setQuery] = useState<ModelListQuery>({ page: 1, pageSize: PAGE_SIZE, sort: 'created', order: 'desc' });
  const models = useModels(query);
  const remove = useDeleteModel();
  const openModel = useOpenModel();
  const openId = useProject((s) => s.project?.id);
  const setProject = useProject((s) => s.setProject);
  // ?create=1 (and /creatModel) open the dialog straight away.
  const creating = params.get('create') === '1';
  const setCreating = (open: boolean) =>
    setParams((p) => {
      if (open) p.set('create', '1');
      else p.delete('create');
      return p;
    });

  const patch = (next: Partial<ModelListQuery>) => setQuery((q) => ({ ...q, page: 1, ...next }));

  const confirmDelete = (model: ModelData) =>
    modal.confirm({
      title: t('list.deleteTitle'),
      content: t('list.deleteBody', { name: model.name }),
      okText: t('list.delete'),
      okButtonProps: { danger: true, 'data-testid': 'model-delete-confirm' },
      cancelText: t('create.cancel'),
      onOk: () =>
        remove
          .mutateAsync(model.id)
          .then(() => {
            // The session must not keep pointing at a model that no longer exists.
            if (openId === String(model.id)) setProject(null);
            void message.success(t('list.deleted', { name: model.name }));
          })
          .catch(() => undefined),
    });

  const columns: TableColumnsType<ModelData> = [
    {
      title: t('list.name'),
      dataIndex: 'name',
      sorter: true,
      render: (name: string, m) => (
        <Space orientation="vertical" size={0}>
          <Typography.Link onClick={() => openModel(m)} data-testid={`model-open-${m.id}`} style={NAME_STYLE}>
            {name}
          </Typography.Link>
          {m.note && <Typography.Text type="secondary">{m.note}</Typography.Text>}
        </Space>
      ),
    },
    // Under 1200 px (992 px for the counts) the secondary columns step aside so Open and Delete stay in view.
    { title: t('list.id'), dataIndex: 'code', responsive: ['xl'] },
    { title: t('list.type'), dataIndex: 'type', render: (type: ModelType) => t(`types.${type}.title`) },
    {
      title: t('list.trainingStatus'),
      dataIndex: 'trainingStatus',
      render: (s: TrainingStatus) => <Tag color={STATUS_COLOR[s]}>{t(`trainingStatus.${s}`)}</Tag>,
    },
    { title: t('list.testStatus'), dataIndex: 'testStatus', render: (s: string) => t(`testStatus.${s}`), responsive: ['lg'] },
    { title: t('list.trainingCount'), dataIndex: 'trainingCount', responsive: ['lg'] },
    {
      title: t('list.images'),
      dataIndex: 'totalImages',
      sorter: true,
      render: (_: number, m) => `${m.labeledImages} / ${m.totalImages}`,
    },
    {
      title: t('list.createdAt'),
      dataIndex: 'createdAt',
      sorter: true,
      defaultSortOrder: 'descend',
      responsive: ['xl'],
      render: (d: string) => new Date(d).toLocaleString(currentLanguage()),
    },
    {
      title: t('list.actions'),
      key: 'actions',
      // Pinned to the right edge: a long name that makes the table scroll never pushes them out of view.
      fixed: 'right',
      render: (_, m) => (
        <Space wrap={false}>
          <Button size="small" type="primary" onClick={() => openModel(m)} data-testid={`model-open-button-${m.id}`}>
            {t('list.open')}
          </Button>
          <Button size="small" danger icon={<DeleteOutlined />} onClick={() => confirmDelete(m)} data-testid={`model-delete-${m.id}`}>
            {t('list.delete')}
          </Button>
        </Space>
      ),
    },
  ];

  const onChange: TableProps<ModelData>['onChange'] = (pagination, _filters, sorter) => {
    const s = Array.isArray(sorter) ? sorter[0] : sorter;
    const field = typeof s?.field === 'string' ? s.field : undefined;
    setQuery((q) => ({
      ...q,
      page: pagination.current ?? 1,
      sort: s?.order && field ? SORT_OF[field] : 'created',
      order: s?.order === 'ascend' ? 'asc' : 'desc',
    }));
  };

  return (
    <Card
      title={t('list.title')}
      className="loupe-page"
      data-testid="model-list"
      extra={
        <Button type="primary" icon={<PlusOutlined />} onClick={() => setCreating(true)} data-testid="create-model">
          {t('list.create')}
        </Button>
      }
    >
      <Space wrap style={{ marginBottom: 16 }}>
        <Select<ModelType>
          allowClear
          placeholder={t('list.anyType')}
          style={{ minWidth: 180 }}
          options={MODEL_TYPES.map((type) => ({ value: type, label: t(`types.${type}.title`) }))}
          onChange={(type) => patch({ type })}
          data-testid="model-filter-type"
        />
        <Select<TrainingStatus>
          allowClear
          placeholder={t('list.anyStatus')}
          style={{ minWidth: 180 }}
          options={TrainingStatuses.map((s) => ({ value: s, label: t(`trainingStatus.${s}`) }))}
          onChange={(trainingStatus) => patch({ trainingStatus })}
          data-testid="model-filter-status"
        />
        <Input.Search
          allowClear
          placeholder={t('list.searchName')}
          maxLength={Limits.textMax}
          onSearch={(name) => patch({ name: name.trim() || undefined })}
          data-testid="model-filter-name"
        />
      </Space>
      <Table<ModelData>
        rowKey="id"
        size="middle"
        loading={models.isFetching}
        dataSource={models.data?.items ?? []}
        columns={columns}
        scroll={{ x: true }}
        tableLayout="auto"
        onChange={onChange}
        locale={{ emptyText: t('list.empty') }}
        pagination={{ current: query.page, pageSize: PAGE_SIZE, total: models.data?.total ?? 0, showSizeChanger: false }}
        onRow={(m) => ({ 'data-testid': `model-row-${m.id}`, 'data-name': m.name }) as object}
      />
      <CreateModelDialog open={creating} onClose={() => setCreating(false)} onCreated={openModel} />
    </Card>
  );
}
