import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { memoryEventHub, type EventBus, type EventHub } from '../src/adapters/event-bus.js';
import { redisEventHub } from '../src/adapters/event-bus-redis.js';
import { redisReachable } from '../src/adapters/redis.js';
import { freePort, startRedis, type TestRedis } from './redis-server.js';

type Ev = { n: number; tag?: string };

/** Resolves once `got` holds n events, or fails naming what did arrive. */
async function until(got: unknown[], n: number, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (got.length < n) {
    if (Date.now() > deadline) throw new Error(`expected ${n} events within ${ms} ms, got ${got.length}: ${JSON.stringify(got).slice(0, 200)}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/**
 * Proof that nothing else is on its way to `got`: a marker published after everything else on the same bus and
 * id arrives after it (one id's events keep their order), so whatever came before the marker is all there is.
 */
async function settle(bus: EventBus<Ev>, id: number, got: Ev[]): Promise<void> {
  const marks: Ev[] = [];
  const off = bus.subscribe(id, (e) => e.tag === 'mark' && marks.push(e));
  await bus.ready();
  bus.publish(id, { n: -1, tag: 'mark' });
  await until(marks, 1);
  off();
  const i = got.findIndex((e) => e.tag === 'mark');
  if (i >= 0) got.splice(i);
}

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

const open: EventHub[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((h) => h.close()));
});

const adapters: [string, () => EventHub][] = [
  ['memory', () => memoryEventHub()],
  ['redis', () => redisEventHub(redis.url)],
];

describe.each(adapters)('EventBus contract: %s', (kind, make) => {
  const hub = () => {
    const h = make();
    open.push(h);
    return h;
  };

  it('delivers 200 events of one id in the order they were published', async () => {
    const bus = hub().topic<Ev>('training');
    const got: Ev[] = [];
    bus.subscribe(1, (e) => got.push(e));
    await bus.ready();
    for (let n = 0; n < 200; n++) bus.publish(1, { n });
    await until(got, 200);
    expect(got.map((e) => e.n)).toEqual([...Array(200).keys()]);
    expect(hub().kind).toBe(kind);
  });

  it('keeps two topics with the same id apart, and two ids of one topic apart', async () => {
    const h = hub();
    const training = h.topic<Ev>('training');
    const test = h.topic<Ev>('test');
    const gotTraining: Ev[] = [];
    const gotTest: Ev[] = [];
    const gotOther: Ev[] = [];
    training.subscribe(5, (e) => gotTraining.push(e));
    test.subscribe(5, (e) => gotTest.push(e));
    training.subscribe(6, (e) => gotOther.push(e));
    await Promise.all([training.ready(), test.ready()]);
    training.publish(5, { n: 1, tag: 'training' });
    test.publish(5, { n: 2, tag: 'test' });
    training.publish(6, { n: 3, tag: 'other' });
    await until(gotTraining, 1);
    await until(gotTest, 1);
    await until(gotOther, 1);
    await settle(training, 5, gotTraining);
    await settle(test, 5, gotTest);
    expect(gotTraining).toEqual([{ n: 1, tag: 'training' }]);
    expect(gotTest).toEqual([{ n: 2, tag: 'test' }]);
    expect(gotOther).toEqual([{ n: 3, tag: 'other' }]);
  });

  it('gives every listener of one id every event, and stops one that unsubscribed', async () => {
    const bus = hub().topic<Ev>('training');
    const a: Ev[] = [];
    const b: Ev[] = [];
    const c: Ev[] = [];
    const offA = bus.subscribe(2, (e) => a.push(e));
    bus.subscribe(2, (e) => b.push(e));
    bus.subscribe(2, (e) => c.push(e));
    await bus.ready();
    for (let n = 0; n < 20; n++) bus.publish(2, { n });
    await until(a, 20);
    await until(b, 20);
    await until(c, 20);
    expect(b).toEqual(a);
    expect(c).toEqual(a);

    offA();
    offA(); // twice is harmless
    bus.publish(2, { n: 99 });
    await until(b, 21);
    await settle(bus, 2, a);
    expect(a).toHaveLength(20);
    expect(c[20]).toEqual({ n: 99 });
  });

  it('stops delivery once the last listener left, and delivers again to a new one', async () => {
    const bus = hub().topic<Ev>('test');
    const first: Ev[] = [];
    const off = bus.subscribe(3, (e) => first.push(e));
    await bus.ready();
    bus.publish(3, { n: 1 });
    await until(first, 1);
    off();
    await bus.ready();
    bus.publish(3, { n: 2 });
    // publish() does not wait for Redis: give it time to be handled before the next subscription goes out on the
    // other connection (otherwise Redis may see the SUBSCRIBE first, and delivering n: 2 would be right).
    await new Promise((r) => setTimeout(r, 150));
    const second: Ev[] = [];
    bus.subscribe(3, (e) => second.push(e));
    await bus.ready();
    bus.publish(3, { n: 3 });
    await until(second, 1);
    await settle(bus, 3, second);
    // n: 2 was published while nobody listened: live events are not kept (history is the database's).
    expect(second).toEqual([{ n: 3 }]);
    expect(first).toEqual([{ n: 1 }]);
  });
});

describe('EventBus over Redis: what only several processes and a real Redis show', () => {
  const hub = () => {
    const h = redisEventHub(redis.url);
    open.push(h);
    return h;
  };

  it('carries an event published on one instance to a listener on another', async () => {
    const onA = hub().topic<Ev>('training');
    const onB = hub().topic<Ev>('training');
    const gotB: Ev[] = [];
    const gotA: Ev[] = [];
    onB.subscribe(11, (e) => gotB.push(e));
    onA.subscribe(11, (e) => gotA.push(e));
    await Promise.all([onA.ready(), onB.ready()]);
    for (let n = 0; n < 50; n++) onA.publish(11, { n });
    await until(gotB, 50);
    await until(gotA, 50);
    expect(gotB.map((e) => e.n)).toEqual([...Array(50).keys()]);
  });

  it('drops a malformed message and survives a listener that throws', async () => {
    const bus = hub().topic<Ev>('training');
    const got: Ev[] = [];
    bus.subscribe(12, () => {
      throw new Error('a broken stream');
    });
    bus.subscribe(12, (e) => got.push(e));
    await bus.ready();
    const raw = new Redis(redis.url);
    try {
      await raw.publish('loupe:training:12', '{not json');
      await raw.publish('loupe:training:12', JSON.stringify({ n: 1 }));
    } finally {
      raw.disconnect();
    }
    bus.publish(12, { n: 2 });
    await until(got, 2);
    expect(got).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it('unsubscribes the channel in Redis when the last local listener leaves', async () => {
    const bus = hub().topic<Ev>('test');
    const offs = [bus.subscribe(13, () => undefined), bus.subscribe(13, () => undefined)];
    await bus.ready();
    const raw = new Redis(redis.url);
    try {
      const count = async () => Number(((await raw.call('pubsub', 'numsub', 'loupe:test:13')) as [string, number])[1]);
      expect(await count()).toBe(1);
      offs[0]!();
      await bus.ready();
      expect(await count()).toBe(1);
      offs[1]!();
      await bus.ready();
      expect(await count()).toBe(0);
    } finally {
      raw.disconnect();
    }
  });

  it('restores its subscriptions after Redis restarts on the same port', async () => {
    // A Redis of its own: the shared one must stay up for the other tests.
    const own = await startRedis();
    let restarted: ChildProcess | null = null;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-redis-restart-'));
    try {
      const onA = redisEventHub(own.url);
      const onB = redisEventHub(own.url);
      open.push(onA, onB);
      const pubBus = onA.topic<Ev>('training');
      const subBus = onB.topic<Ev>('training');
      const got: Ev[] = [];
      subBus.subscribe(21, (e) => got.push(e));
      await subBus.ready();
      pubBus.publish(21, { n: 1 });
      await until(got, 1);

      await own.stop();
      restarted = spawn('redis-server', ['--port', String(own.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
      await redisReachableSoon(own.url);
      // ready() waits for the subscriber to be back and subscribed again.
      await subBus.ready();
      pubBus.publish(21, { n: 2 });
      await until(got, 2);
      expect(got).toEqual([{ n: 1 }, { n: 2 }]);
    } finally {
      if (restarted && restarted.exitCode === null) {
        const gone = new Promise((r) => restarted!.once('exit', r));
        restarted.kill('SIGTERM');
        await gone;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('says clearly at start-up that REDIS_URL cannot be reached', async () => {
    const port = await freePort();
    await expect(redisReachable(`redis://:secret@127.0.0.1:${port}`, 2000)).rejects.toThrow(
      new RegExp(`^REDIS_URL redis://:\\*\\*\\*@127\\.0\\.0\\.1:${port}/? cannot be reached: .*ECONNREFUSED`),
    );
    await expect(redisReachable(redis.url, 2000)).resolves.toBeUndefined();
  });
});

async function redisReachableSoon(url: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      return await redisReachable(url, 500);
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
