import type { TestProgressEvent, TestStateEvent, TrainingProgressEvent, TrainingStateEvent } from '@loupe/contracts';
import type { EventBus } from '../adapters/event-bus.js';

/** A live training event; `id` (the epoch) is what a reconnecting client sends back as Last-Event-ID. */
export type TrainingEvent = { type: 'progress'; id?: number; data: TrainingProgressEvent } | { type: 'state'; data: TrainingStateEvent };
/** A live test event: progress is the whole current count, so a reconnect needs no id, only the replay. */
export type TestEvent = { type: 'progress'; data: TestProgressEvent } | { type: 'state'; data: TestStateEvent };

/** The topics of the EventHub (adapters/event-bus.ts) that job progress travels on; every later job kind adds its own. */
export const Topics = { training: 'training', test: 'test' } as const;

export type TrainingBus = EventBus<TrainingEvent>;
export type TestBus = EventBus<TestEvent>;
