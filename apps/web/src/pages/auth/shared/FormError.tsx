import { Alert } from 'antd';

/** The server's answer, already in the user's language, shown above the form it refused. */
export function FormError({ error, testId }: { error: unknown; testId: string }) {
  if (!error) return null;
  return <Alert type="error" showIcon title={errorText(error)} data-testid={testId} style={{ marginBottom: '1rem' }} />;
}

export function errorText(error: unknown): string {
  if (error && typeof error === 'object' && 'message' in error && typeof error.message === 'string') {
    return error.message;
  }
  return String(error);
}
