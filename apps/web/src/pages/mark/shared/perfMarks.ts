/**
 * Named points of an image switch (annotations fetched, editor loaded, image decoded, scene drawn) on the
 * browser's performance timeline, so the benchmark can break the open time down without a profiler. A mark
 * costs about a microsecond; environments without the User Timing API skip it.
 */
export function perfMark(name: string): void {
  if (typeof performance !== 'undefined' && typeof performance.mark === 'function') performance.mark(`loupe:${name}`);
}
