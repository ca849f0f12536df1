import { useEffect, useReducer, useRef, useState } from 'react';
import { Headers as HeaderNames, TrainingPaths, type TrainingData, type TrainingStateEvent } from '@loupe/contracts';
import { ApiError } from '@/api/errors';
import { react } from '@/api/reactions';
import { currentLanguage } from '@/i18n';
import { getSession } from '@/stores/session';
import { openEventStream, type StreamFailure } from '../sse/eventStream';
import { trainingPath } from '../trainingApi';
import { applyEvent, initialLive, isTerminal, parseEvent } from './liveTraining';

/** How the live connection stands; `failed` means the page falls back to polling. */
export type StreamState = 'connecting' | 'open' | 'reconnecting' | 'ended' | 'failed';

/** The same headers as every API call (SPEC §7): Language, and X-Token when signed in. */
export function streamHeaders(): Record<string, string> {
  const headers: Record<string, string> = { [HeaderNames.language]: currentLanguage() };
  const token = getSession().token;
  if (token) headers[HeaderNames.token] = token;
  return headers;
}

/** A refusal of the stream gets the client's usual reaction (the relogin dialog for a lost session). */
export function errorOf(failure: StreamFailure): ApiError {
  const body = failure.body as { code?: unknown; message?: unknown; data?: unknown } | null;
  if (body && typeof body.code === 'number') return react(new ApiError(body.code, String(body.message ?? ''), body.data ?? null));
  return new ApiError(failure.status || -1, '');
}

/**
 * Follows one running training over SSE: the server replays the finished epochs, then streams live ones;
 * after a drop the reader resumes from the last epoch it saw. `onEnd` runs once, at the terminal state.
 * The caller keys the component by training id, so a new training starts from a clean state.
 */
export function useTrainingStream(modelId: string, training: TrainingData, onEnd: (state: TrainingStateEvent) => void) {
  const [live, dispatch] = useReducer(applyEvent, training, initialLive);
  const [stream, setStream] = useState<StreamState>('connecting');
  const [failure, setFailure] = useState<ApiError | null>(null);
  const onEndRef = useRef(onEnd);
  useEffect(() => {
    onEndRef.current = onEnd;
  });

  const trainingId = training.id;
  useEffect(() => {
    const handle = openEventStream({
      url: trainingPath(TrainingPaths.events, modelId, trainingId),
      headers: streamHeaders,
      onOpen: () => setStream('open'),
      onRetry: () => setStream('reconnecting'),
      onFatal: (f) => {
        setFailure(errorOf(f));
        setStream('failed');
      },
      onEvent: (message) => {
        const event = parseEvent(message.type, message.data);
        if (!event) return 'continue';
        dispatch(event);
        if (event.type === 'state' && isTerminal(event.data.status)) {
          setStream('ended');
          onEndRef.current(event.data);
          return 'end';
        }
        return 'continue';
      },
    });
    return () => handle.close();
  }, [modelId, trainingId]);

  return { live, stream, failure };
}
