import { useRef } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { Progress, Typography } from 'antd';
import { useTranslation } from '@/i18n';
import { formatBytes } from './format';
import type { ItemStatus, QueueSnapshot } from './queue';

const STATUS_OF: Record<ItemStatus, 'normal' | 'active' | 'success' | 'exception'> = {
  waiting: 'normal',
  uploading: 'active',
  done: 'success',
  refused: 'exception',
  failed: 'exception',
};

/** The total bar and one bar per file; the file list is virtualised since a folder can hold thousands. */
export function UploadProgress({ snapshot }: { snapshot: QueueSnapshot }) {
  const { t } = useTranslation('gallery');
  const ref = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: snapshot.items.length,
    getScrollElement: () => ref.current,
    estimateSize: () => 32,
    overscan: 8,
    initialRect: { width: 600, height: 260 },
  });
  const { counts } = snapshot;
  return (
    <div>
      <Progress percent={snapshot.percent} status={snapshot.running ? 'active' : undefined} data-testid="upload-progress-total" />
      <Typography.Paragraph type="secondary" data-testid="upload-progress-counts">
        {t('upload.progressCounts', {
          done: counts.done,
          total: snapshot.items.length,
          refused: counts.refused,
          failed: counts.failed,
          sent: formatBytes(snapshot.loadedBytes),
          size: formatBytes(snapshot.totalBytes),
        })}
      </Typography.Paragraph>
      <div ref={ref} className="loupe-upload-files" data-testid="upload-progress-files">
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((row) => {
            const item = snapshot.items[row.index]!;
            const percent = item.size ? Math.floor((item.loaded / item.size) * 100) : 0;
            return (
              <div
                key={item.id}
                className="loupe-upload-file"
                style={{ position: 'absolute', top: 0, left: 0, right: 0, height: 32, transform: `translateY(${row.start}px)` }}
                data-testid={`upload-file-${row.index}`}
                data-status={item.status}
              >
                <Typography.Text ellipsis title={item.reason ? `${item.name}: ${item.reason}` : item.name}>
                  {item.name}
                </Typography.Text>
                <Progress
                  size="small"
                  percent={item.status === 'done' ? 100 : percent}
                  status={STATUS_OF[item.status]}
                  showInfo={false}
                />
                <Typography.Text type={item.status === 'done' ? 'success' : item.reason ? 'danger' : 'secondary'}>
                  {t(`upload.status.${item.status}`)}
                </Typography.Text>
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}
