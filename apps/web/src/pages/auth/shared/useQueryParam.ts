import { useSearchParams } from 'react-router-dom';

/** One query-string value, '' when absent (links from mails carry ?token=…, steps pass ?email=…). */
export function useQueryParam(name: string): string {
  const [params] = useSearchParams();
  return params.get(name) ?? '';
}
