import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  TestPaths,
  type TestImagesData,
  type TestImagesQuery,
  type TestRunData,
  type TestRunListData,
  type TestStartBody,
  type TestStatus,
} from '@loupe/contracts';
import { api } from '@/api/client';
import { pathOf } from '@/pages/gallery/galleryApi';
import { modelsKey } from '@/pages/models/modelsApi';

/** A run in one of these holds its model (project status 'testing'); the rest are terminal or never ran. */
export const ACTIVE_TEST_STATUSES: readonly TestStatus[] = ['queued', 'preparing', 'testing'];
export const isActiveTest = (status: TestStatus | undefined) => status !== undefined && ACTIVE_TEST_STATUSES.includes(status);

export const testsKey = (modelId: string) => ['tests', modelId] as const;
const runKey = (modelId: string, testId: number) => [...testsKey(modelId), 'run', testId] as const;
const imagesKey = (modelId: string, testId: number) => [...testsKey(modelId), 'images', testId] as const;

/** The model's runs, newest first; a run started elsewhere (another tab) shows up on the next focus. */
export function useTestRuns(modelId: string) {
  return useQuery({
    queryKey: [...testsKey(modelId), 'list'],
    queryFn: () => api.get<TestRunListData>(pathOf(TestPaths.list, { modelId })),
  });
}

/** One run with its summary; the list's copy is shown until it arrives. */
export function useTestRun(modelId: string, testId: number | undefined, placeholder?: TestRunData) {
  return useQuery({
    queryKey: runKey(modelId, testId ?? 0),
    queryFn: () => api.get<TestRunData>(pathOf(TestPaths.one, { modelId, testId: testId! })),
    enabled: testId !== undefined,
    placeholderData: placeholder,
  });
}

export function useTestImages(modelId: string, testId: number | undefined, query: TestImagesQuery) {
  return useQuery({
    queryKey: [...imagesKey(modelId, testId ?? 0), query],
    queryFn: () => api.get<TestImagesData>(pathOf(TestPaths.images, { modelId, testId: testId! }), { params: { ...query } }),
    enabled: testId !== undefined,
    placeholderData: keepPreviousData,
  });
}

/** Runs, the model (projectStatus, testStatus) and the gallery's tested filters all change with a run. */
export function useTestsInvalidate(modelId: string) {
  const client = useQueryClient();
  return () =>
    Promise.all([
      client.invalidateQueries({ queryKey: testsKey(modelId) }),
      client.invalidateQueries({ queryKey: modelsKey }),
      client.invalidateQueries({ queryKey: ['images', modelId] }),
    ]);
}

/**
 * Not silent: 80066 (no model, to /train), 8005 (no images, to the dataset page) and 9002 (data changed, to
 * /train) get the client's notice with its button; the page shows the rest (40004 ongoing testing…).
 */
export function useStartTest(modelId: string) {
  const invalidate = useTestsInvalidate(modelId);
  return useMutation({
    mutationFn: (body: TestStartBody) => api.post<TestRunData>(pathOf(TestPaths.list, { modelId }), body),
    onSettled: invalidate,
  });
}

/** Stopping makes the test fail (SPEC §4). */
export function useStopTest(modelId: string) {
  const invalidate = useTestsInvalidate(modelId);
  return useMutation({
    mutationFn: (testId: number) => api.post<TestRunData>(pathOf(TestPaths.stop, { modelId, testId })),
    onSettled: invalidate,
  });
}
