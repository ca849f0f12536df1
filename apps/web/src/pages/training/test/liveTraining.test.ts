import { describe, expect, it } from 'vitest';
import { applyEvent, initialLive, parseEvent, type LiveEvent } from '../train/liveTraining';
import { accuracyReason, trendPoints } from '../train/accuracy';
import { evaluationOf } from '../model/evaluation';
import { detail, epochMetrics, training } from './fixtures';

const progress = (epoch: number, metrics: Record<string, unknown> = epochMetrics(epoch), phase: 'training' | 'validating' | 'preparing' = 'training'): LiveEvent => ({
  type: 'progress',
  data: { phase, epoch, epochs: 5, metrics, etaS: 10 * (5 - epoch) },
});

describe('live training state', () => {
  const queued = initialLive(training({ id: 4, status: 'queued', phase: 'queued', epoch: 0, epochs: 0, accuracy: null }));

  it('moves through the phases and keeps one point per epoch, also when a reconnect replays some', () => {
    let s = applyEvent(queued, progress(0, {}, 'preparing'));
    expect([s.status, s.phase]).toEqual(['preparing', 'preparing']);
    s = applyEvent(s, progress(0, {}, 'training'));
    expect(s.status).toBe('training');
    for (const e of [1, 2, 1, 2, 3]) s = applyEvent(s, progress(e));
    expect(s.history.map((h) => h.epoch)).toEqual([1, 2, 3]);
    expect([s.epoch, s.epochs, s.etaS]).toEqual([3, 5, 20]);
    s = applyEvent(s, progress(3, {}, 'validating'));
    expect([s.phase, s.epoch]).toEqual(['validating', 3]);
    s = applyEvent(s, { type: 'state', data: { status: 'failed', error: 'out of memory' } });
    expect([s.status, s.error, s.etaS]).toEqual(['failed', 'out of memory', null]);
  });

  it('skips unknown events and unreadable data', () => {
    expect(parseEvent('message', '{}')).toBeNull();
    expect(parseEvent('progress', 'not json')).toBeNull();
    expect(parseEvent('state', '{"status":"succeeded","error":null}')).toEqual({ type: 'state', data: { status: 'succeeded', error: null } });
  });
});

describe('accuracy rules (SPEC §5, §9)', () => {
  it('explains a missing accuracy', () => {
    expect(accuracyReason(training({ accuracy: 0.5 }))).toBeNull();
    expect(accuracyReason(training({ accuracy: null, labeledImages: 29 }))).toBe('fewLabeled');
    expect(accuracyReason(training({ accuracy: null, status: 'cancelled' }))).toBe('notSucceeded');
    expect(accuracyReason(training({ accuracy: null, status: 'preparing' }))).toBe('running');
  });

  it('trends the last 10 succeeded trainings with an accuracy, oldest first', () => {
    const list = Array.from({ length: 14 }, (_, i) =>
      training({ id: i + 1, accuracy: i === 12 ? null : (i + 1) / 100, status: i === 13 ? 'failed' : 'succeeded' }),
    );
    const points = trendPoints(list);
    expect(points.map((p) => p.version)).toEqual(['v3', 'v4', 'v5', 'v6', 'v7', 'v8', 'v9', 'v10', 'v11', 'v12']);
  });
});

describe('evaluation for /model', () => {
  it('reads the evaluation, then the summary, then the best epoch', () => {
    const t = training({ summary: { best_epoch: 2 } });
    expect(evaluationOf(detail(t)).perClass.map((c) => [c.name, c.values.ap50])).toEqual([
      ['scratch', 0.4],
      ['dent', 0.3],
    ]);
    const withSummary = detail(training({ summary: { per_class: { a: { AP50: 1, AP50_95: 0.5, instances: 2 } }, confusion_matrix: [[1, 0], [0, 0]] } }));
    const e = evaluationOf(withSummary);
    expect([e.perClassSource, e.confusion?.names]).toEqual(['final', ['a']]);
    // A matrix that does not fit the classes is not drawn rather than drawn wrong.
    expect(evaluationOf(detail(training({ summary: { per_class: { a: { AP50: 1, AP50_95: 0.5 } }, confusion_matrix: [[1]] } }))).confusion).toBeNull();
  });
});
