/**
 * Project pages are recognised by their first path segment (SPEC §2 fragments). Two departures from the
 * list: SPEC's "prview" is read as the /preview step, and /agent is added because it is a step of the
 * type 8 sidebar; without it, opening Agents would swap the project sidebar for the permission menu. /statistics
 * (issue 35: a model's dataset and test analysis charts) is a project page reached from the gallery, /test and /agent.
 */
export const PROJECT_FRAGMENTS = [
  'mark', 'train', 'test', 'preview', 'curate', 'parameter', 'generate', 'synthetic', 'background',
  'testImage', 'gallery', 'download', 'monitor', 'model', 'agent', 'statistics',
] as const;

export function firstSegment(pathname: string): string {
  return pathname.split('/').find((s) => s.length > 0) ?? '';
}

export function isProjectPage(pathname: string): boolean {
  const first = firstSegment(pathname).toLowerCase();
  return PROJECT_FRAGMENTS.some((f) => f.toLowerCase() === first);
}
