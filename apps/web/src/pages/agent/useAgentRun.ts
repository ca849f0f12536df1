import { useEffect, useReducer, useRef, useState } from 'react';
import { AgentPaths, type AgentRunData } from '@loupe/contracts';
import { openEventStream } from '@/pages/training/sse/eventStream';
import { errorOf, streamHeaders, type StreamState } from '@/pages/training/train/useTrainingStream';
import { agentPath, isTerminalPhase, useAgentDetail } from './agentApi';
import { applyEvent, initialLive, parseEvent, type LiveAgent } from './liveAgent';

/** How often the page asks for the run when the stream is refused (a proxy that buffers, an old server). */
export const POLL_MS = 3000;

/**
 * One run as it stands. A run that was still working when opened is followed over SSE (the server replays its
 * trials and log, then streams; after a drop the reader reconnects, and a replay without event ids starts the
 * log afresh); a refused stream falls back to polling. A finished run is read once. `onRun` hears every new run
 * state, so the history list follows.
 */
export function useAgentRun(modelId: string, listed: AgentRunData, onRun: (run: AgentRunData) => void) {
  const [follow] = useState(() => !isTerminalPhase(listed.phase));
  const [live, dispatch] = useReducer(applyEvent, listed, initialLive);
  const [stream, setStream] = useState<StreamState>(follow ? 'connecting' : 'ended');
  const polling = stream === 'failed';
  const detail = useAgentDetail(modelId, listed.id, { enabled: !follow || polling, pollMs: polling ? POLL_MS : undefined });
  const onRunRef = useRef(onRun);
  useEffect(() => {
    onRunRef.current = onRun;
  });

  const agentId = listed.id;
  useEffect(() => {
    if (!follow) return;
    const handle = openEventStream({
      url: agentPath(AgentPaths.events, modelId, agentId),
      headers: streamHeaders,
      onOpen: (attempt) => {
        setStream('open');
        if (attempt > 0 && handle.lastEventId() === '') dispatch({ type: 'reset' });
      },
      onRetry: () => setStream('reconnecting'),
      onFatal: (failure) => {
        // The client's usual reaction (the relogin dialog for a lost session); the page polls instead.
        errorOf(failure);
        setStream('failed');
      },
      onEvent: (message) => {
        const event = parseEvent(message.type, message.data);
        if (!event) return 'continue';
        dispatch(event);
        if (event.type !== 'run') return 'continue';
        onRunRef.current(event.data);
        if (!isTerminalPhase(event.data.phase)) return 'continue';
        setStream('ended');
        return 'end';
      },
    });
    return () => handle.close();
  }, [modelId, agentId, follow]);

  // Polling: the list hears when the run ends, so the start form comes back.
  const polled = detail.data?.run;
  useEffect(() => {
    if (polling && polled) onRunRef.current(polled);
  }, [polling, polled]);

  const shown: LiveAgent | undefined = follow && !polling ? live : detail.data;
  return { shown, stream, detail };
}
