import { useEffect, useState } from 'react';
import {
  Headers as HeaderNames,
  RELOGIN_CODES,
  TestPaths,
  type TestProgressEvent,
  type TestRunData,
  type TestStateEvent,
  type TestStatus,
} from '@loupe/contracts';
import { currentLanguage } from '@/i18n';
import { ApiError } from '@/api/errors';
import { react } from '@/api/reactions';
import { pathOf } from '@/pages/gallery/galleryApi';
import { openEventStream } from '@/pages/training/sse/eventStream';
import { getSession } from '@/stores/session';
import { isActiveTest, useTestsInvalidate } from './testApi';

export interface LiveTest {
  /** Set once the stream reported progress; until then the run's own `done`/`imageCount` apply. */
  progress: TestProgressEvent | null;
  /** The latest `state` event; null before the first one. */
  status: TestStatus | null;
  error: string | null;
  /** The stream dropped and the reader is waiting to reconnect. */
  reconnecting: boolean;
}

const IDLE: LiveTest = { progress: null, status: null, error: null, reconnecting: false };

function headers(): Record<string, string> {
  const out: Record<string, string> = { [HeaderNames.language]: currentLanguage() };
  const token = getSession().token;
  if (token) out[HeaderNames.token] = token;
  return out;
}

function parse<T>(data: string): T | null {
  try {
    return JSON.parse(data) as T;
  } catch {
    return null;
  }
}

/**
 * Live progress of an active run over SSE (the training page's fetch reader: X-Token header, Last-Event-ID on
 * reconnect). The stream ends after the terminal `state`; the run, the list and the model are then re-read.
 */
export function useTestEvents(modelId: string, run: TestRunData | undefined): LiveTest {
  const [live, setLive] = useState<{ runId: number | null; state: LiveTest }>({ runId: null, state: IDLE });
  const invalidate = useTestsInvalidate(modelId);
  const runId = run?.id;
  const active = isActiveTest(run?.status);

  useEffect(() => {
    if (runId === undefined || !active) return;
    const update = (patch: Partial<LiveTest>) =>
      setLive((l) => ({ runId, state: { ...(l.runId === runId ? l.state : IDLE), ...patch } }));
    const stream = openEventStream({
      url: pathOf(TestPaths.events, { modelId, testId: runId }),
      headers,
      onOpen: () => update({ reconnecting: false }),
      onRetry: () => update({ reconnecting: true }),
      onEvent: (event) => {
        if (event.type === 'progress') {
          const progress = parse<TestProgressEvent>(event.data);
          if (progress) update({ progress });
          return 'continue';
        }
        if (event.type !== 'state') return 'continue';
        const state = parse<TestStateEvent>(event.data);
        if (!state) return 'continue';
        update({ status: state.status, error: state.error });
        if (isActiveTest(state.status)) return 'continue';
        void invalidate();
        return 'end';
      },
      onFatal: (failure) => {
        const body = failure.body as { code?: number; message?: string } | null;
        // A session ended elsewhere gets the relogin dialog; any other refusal: the run is re-read instead.
        if (body && typeof body.code === 'number' && RELOGIN_CODES.includes(body.code)) react(new ApiError(body.code, body.message ?? ''));
        void invalidate();
      },
    });
    return () => stream.close();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- one stream per active run
  }, [modelId, runId, active]);

  return live.runId === runId ? live.state : IDLE;
}
