import type { ReactNode } from 'react';
import { Card, Typography } from 'antd';

interface Props {
  title: ReactNode;
  subtitle?: ReactNode;
  children?: ReactNode;
  testId?: string;
}

/** The centred card every public account screen sits in; sizes are in rem so the shell's root-font scaling applies. */
export function AuthCard({ title, subtitle, children, testId }: Props) {
  return (
    <div style={{ display: 'flex', justifyContent: 'center', alignItems: 'flex-start', padding: '3rem 1rem' }}>
      <Card style={{ width: '100%', maxWidth: '28rem' }} data-testid={testId}>
        <Typography.Title level={3} style={{ marginTop: 0 }}>
          {title}
        </Typography.Title>
        {subtitle && <Typography.Paragraph type="secondary">{subtitle}</Typography.Paragraph>}
        {children}
      </Card>
    </div>
  );
}
