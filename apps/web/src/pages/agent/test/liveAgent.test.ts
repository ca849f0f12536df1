import { describe, expect, it } from 'vitest';
import { applyEvent, etaNow, initialLive, parseEvent, stepOf } from '../liveAgent';
import { agentRun, logEntry, trial } from './fixtures';

describe('live agent state', () => {
  it('replaces a trial by number, appends the log, and starts the log afresh on a replay', () => {
    let state = initialLive(agentRun({ phase: 'tuning' }));
    state = applyEvent(state, { type: 'trial', data: trial(1, 'running', null) });
    state = applyEvent(state, { type: 'trial', data: trial(0, 'complete', 0.3) });
    state = applyEvent(state, { type: 'trial', data: trial(1, 'pruned', 0.1) });
    state = applyEvent(state, { type: 'log', data: logEntry('tuning', 'a') });
    expect(state.trials.map((t) => [t.number, t.state])).toEqual([
      [0, 'complete'],
      [1, 'pruned'],
    ]);
    expect(applyEvent(state, { type: 'reset' })).toMatchObject({ log: [], trials: state.trials });
  });

  it('reads only the events it knows, whole', () => {
    expect(parseEvent('run', JSON.stringify(agentRun()))?.type).toBe('run');
    expect(parseEvent('log', '{"text":')).toBeNull();
    expect(parseEvent('trial', '{"state":"running"}')).toBeNull();
    expect(parseEvent('progress', '{}')).toBeNull();
  });

  it('places a failed or cancelled run on the working phase its log last names', () => {
    const log = [logEntry('initialising', 'x'), logEntry('training', 'y'), logEntry('failed', 'z')];
    expect(stepOf(agentRun({ phase: 'failed' }), log)).toBe('training');
    expect(stepOf(agentRun({ phase: 'cancelled' }), [])).toBe('initialising');
    expect(stepOf(agentRun({ phase: 'cancelled', startedAt: null }), [])).toBe('notStarted');
    expect(stepOf(agentRun({ phase: 'testing' }), log)).toBe('testing');
  });

  it('counts the time left down from the last value the server sent, never below zero', () => {
    expect(etaNow(600, 1_000, 4_500)).toBe(597);
    expect(etaNow(2, 0, 10_000)).toBe(0);
    expect(etaNow(null, 0, 0)).toBeNull();
  });
});
