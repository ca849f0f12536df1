import { useEffect, useState, type ReactNode } from 'react';
import { Button, type ButtonProps } from 'antd';
import { useTranslation } from 'react-i18next';
import { Limits } from '@loupe/contracts';
import { useCountdown } from './useCountdown';

interface Props extends Omit<ButtonProps, 'onClick' | 'children'> {
  /** Sends the code or mail; resolves to the server's wait in seconds, if it names one. Throws on refusal. */
  onSend: () => Promise<number | undefined | void>;
  children: ReactNode;
  /** Start locked, for screens reached right after a mail was sent. */
  initialWait?: number;
}

/** A send/resend button that locks itself for the resend interval (Limits.codeResendS) after each success. */
export function CountdownButton({ onSend, children, disabled, initialWait, ...rest }: Props) {
  const { t } = useTranslation('auth');
  const { remaining, start } = useCountdown();
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (initialWait) start(initialWait);
  }, [initialWait, start]);

  const click = async () => {
    setBusy(true);
    try {
      const wait = await onSend();
      start(typeof wait === 'number' && wait > 0 ? wait : Limits.codeResendS);
    } catch {
      // The caller shows the refusal; the button stays available so the user can try again.
    } finally {
      setBusy(false);
    }
  };

  return (
    <Button {...rest} loading={busy} disabled={disabled || remaining > 0} onClick={() => void click()}>
      {remaining > 0 ? t('common.resendIn', { seconds: remaining }) : children}
    </Button>
  );
}
