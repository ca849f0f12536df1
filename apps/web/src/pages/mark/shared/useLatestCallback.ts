import { useCallback, useRef } from 'react';

/**
 * A function of constant identity that calls the latest `fn`. Handlers built inline in a page (they close over
 * its state) would otherwise change on every render and make every memoized panel render again: an image switch
 * renders the labeling page 3-4 times, at 25-60 ms each with all its antd panels.
 */
export function useLatestCallback<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
  const latest = useRef(fn);
  latest.current = fn;
  return useCallback((...args: A) => latest.current(...args), []);
}
