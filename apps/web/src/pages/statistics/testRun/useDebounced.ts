import { useEffect, useState } from 'react';

/** `value` once it has stood still for `ms`: a dragged slider asks the server once, where it stops. */
export function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}
