export type StatisticsTab = 'dataset' | 'test';

/** The link to /statistics: ?id=<model>&tab=…[&testId=…] (the gallery, /test and /agent link here). */
export function statisticsPath(modelId: string | number, tab: StatisticsTab = 'dataset', testId?: number): string {
  const query = new URLSearchParams({ id: String(modelId), tab });
  if (testId !== undefined) query.set('testId', String(testId));
  return `/statistics?${query.toString()}`;
}
