import { useEffect, useRef } from 'react';
import { Card, Empty, Tag } from 'antd';
import type { AgentLogEntry } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { dateTime } from '@/pages/training/shared/format';

/** The agent's decisions as the server wrote them, newest last; kept scrolled to the newest unless read above. */
export function AgentLog({ log }: { log: readonly AgentLogEntry[] }) {
  const { t } = useTranslation('agent');
  const ref = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  useEffect(() => {
    const el = ref.current;
    if (el && pinned.current) el.scrollTop = el.scrollHeight;
  }, [log]);
  return (
    <Card size="small" title={t('log.title')}>
      <div
        ref={ref}
        className="loupe-agent-log"
        data-testid="agent-log"
        data-entries={log.length}
        onScroll={(e) => {
          const el = e.currentTarget;
          pinned.current = el.scrollTop + el.clientHeight >= el.scrollHeight - 8;
        }}
      >
        {log.length === 0 && <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('log.empty')} />}
        {log.map((entry, i) => (
          <div key={`${entry.at}-${i}`} className="loupe-agent-log-entry" data-testid="agent-log-entry" data-key={entry.key} data-phase={entry.phase}>
            <span className="loupe-agent-log-time">{dateTime(entry.at)}</span>
            <Tag>{t(`phase.${entry.phase}`)}</Tag>
            <span>{entry.text}</span>
          </div>
        ))}
      </div>
    </Card>
  );
}
