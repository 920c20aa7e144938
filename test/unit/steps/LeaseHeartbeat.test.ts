import { describe, expect, it } from 'vitest';
import { LeaseHeartbeat } from '../../../src/steps/LeaseHeartbeat.js';

/** A runtime whose timers fire only when `fire()` is called. */
function manualTimers() {
  const pending: Array<{ millis: number; callback: () => void; cancelled: boolean }> = [];
  return {
    pending,
    startTimer(millis: number, callback: () => void) {
      const timer = { millis, callback, cancelled: false };
      pending.push(timer);
      return () => {
        timer.cancelled = true;
      };
    },
    live: () => pending.filter((timer) => !timer.cancelled),
    async fire() {
      const timer = pending.find((t) => !t.cancelled);
      if (timer === undefined) throw new Error('no timer');
      pending.splice(pending.indexOf(timer), 1);
      timer.callback();
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

describe('LeaseHeartbeat', () => {
  it('beats every period, setting the next timer only once a beat settled', async () => {
    const timers = manualTimers();
    let beats = 0;
    const heartbeat = new LeaseHeartbeat(timers, 333, async () => {
      beats += 1;
      return true;
    });

    heartbeat.start();
    await timers.fire();
    await timers.fire();

    expect(beats).toBe(2);
    expect(timers.live()).toHaveLength(1);
    expect(timers.live()[0]?.millis).toBe(333);
  });

  it('stops when a beat says the lease is lost or at its end', async () => {
    const timers = manualTimers();
    const heartbeat = new LeaseHeartbeat(timers, 100, async () => false);

    heartbeat.start();
    await timers.fire();

    expect(timers.live()).toHaveLength(0);
  });

  it('goes on after a beat that failed (the next one tries again)', async () => {
    const timers = manualTimers();
    const heartbeat = new LeaseHeartbeat(timers, 100, async () => {
      throw new Error('throttled');
    });

    heartbeat.start();
    await timers.fire();

    expect(timers.live()).toHaveLength(1);
  });

  it('waits on pause for a beat in flight, and sets no timer after it', async () => {
    const timers = manualTimers();
    let finish: (goOn: boolean) => void = () => {};
    const heartbeat = new LeaseHeartbeat(
      timers,
      100,
      () =>
        new Promise<boolean>((resolve) => {
          finish = resolve;
        }),
    );
    heartbeat.start();
    await timers.fire();

    let paused = false;
    const pausing = heartbeat.pause().then(() => {
      paused = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(paused).toBe(false);
    finish(true);
    await pausing;

    expect(paused).toBe(true);
    expect(timers.live()).toHaveLength(0);
  });

  it('starts again after a pause', async () => {
    const timers = manualTimers();
    const heartbeat = new LeaseHeartbeat(timers, 100, async () => true);
    heartbeat.start();
    await heartbeat.pause();

    heartbeat.start();

    expect(timers.live()).toHaveLength(1);
  });
});
