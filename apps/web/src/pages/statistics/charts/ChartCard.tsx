import type { ReactNode } from 'react';
import { Card, Col } from 'antd';

/** One chart in the statistics grid: half the width on wide screens, the whole width below. */
export function ChartCard({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Col xs={24} xl={12}>
      <Card size="small" title={title}>
        {children}
      </Card>
    </Col>
  );
}
