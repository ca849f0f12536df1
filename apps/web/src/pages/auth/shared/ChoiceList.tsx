import type { ReactNode } from 'react';
import { Button, Flex } from 'antd';
import { useNavigate } from 'react-router-dom';

export interface Choice {
  key: string;
  label: ReactNode;
  icon?: ReactNode;
  /** Route inside the app, or a callback for choices that leave it (single sign-on). */
  to: string | (() => void);
  testId: string;
}

/** A column of large buttons, one per way to continue (sign in with…, sign up with…, reset by…). */
export function ChoiceList({ choices }: { choices: Choice[] }) {
  const navigate = useNavigate();
  return (
    <Flex vertical gap="middle">
      {choices.map((c) => (
        <Button
          key={c.key}
          block
          size="large"
          icon={c.icon}
          data-testid={c.testId}
          onClick={() => (typeof c.to === 'string' ? navigate(c.to) : c.to())}
        >
          {c.label}
        </Button>
      ))}
    </Flex>
  );
}
