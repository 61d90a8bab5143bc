// The sync scheduler: one run at a time, one trailing run for every request made meanwhile, a
// debounced request for bursts of writes, and dispose() cancelling what is only pending.
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { TeamSyncScheduler } from '../../../../src/core/memory/team/syncScheduler';
import type { TeamSyncReport } from '../../../../src/core/memory/team/teamSyncTypes';

function report(n: number): TeamSyncReport {
  return {
    repo: 'acme/widgets',
    server: 'http://x',
    at: new Date(n).toISOString(),
    ok: true,
    pulled: [],
    pushed: [],
    skipped: [],
    blocked: [],
    retries: n,
  };
}

/** A sync that runs until released, counting how many ran and how many at once. */
function gatedSync() {
  const gates: Array<() => void> = [];
  const state = { runs: 0, active: 0, maxActive: 0 };
  const run = async (): Promise<TeamSyncReport> => {
    const n = ++state.runs;
    state.active++;
    state.maxActive = Math.max(state.maxActive, state.active);
    await new Promise<void>((resolve) => gates.push(resolve));
    state.active--;
    return report(n);
  };
  const release = async () => {
    while (gates.length === 0) await delay(1);
    gates.shift()?.();
  };
  return { run, release, state };
}

describe('TeamSyncScheduler', () => {
  it('runs one sync at a time and folds every request made during a run into one trailing run', async () => {
    const sync = gatedSync();
    const seen: number[] = [];
    const scheduler = new TeamSyncScheduler(sync.run, { onReport: (r) => seen.push(r.retries) });
    const first = scheduler.request();
    const second = scheduler.request();
    const third = scheduler.request();
    assert.equal(second, third, 'requests during a run share the trailing run');
    await sync.release();
    assert.equal((await first).retries, 1);
    await sync.release();
    assert.equal((await second).retries, 2);
    assert.deepEqual([sync.state.runs, sync.state.maxActive], [2, 1]);
    assert.deepEqual(seen, [1, 2]);
    const fourth = scheduler.request();
    await sync.release();
    assert.equal((await fourth).retries, 3, 'idle again: a new request runs at once');
  });

  it('still runs the trailing sync when the one before it failed', async () => {
    let calls = 0;
    const scheduler = new TeamSyncScheduler(async () => {
      calls++;
      if (calls === 1) {
        await delay(10);
        throw new Error('boom');
      }
      return report(calls);
    });
    const first = scheduler.request();
    const second = scheduler.request();
    await assert.rejects(first, /boom/);
    assert.equal((await second).retries, 2);
  });

  it('debounces requestSoon() and dispose() cancels a pending one', async () => {
    let runs = 0;
    const scheduler = new TeamSyncScheduler(async () => report(++runs), { debounceMs: 30 });
    scheduler.requestSoon();
    await delay(10);
    scheduler.requestSoon();
    await delay(10);
    scheduler.requestSoon();
    assert.equal(runs, 0);
    await delay(80);
    assert.equal(runs, 1, 'a burst of writes syncs once');
    scheduler.requestSoon();
    scheduler.dispose();
    await delay(80);
    assert.equal(runs, 1, 'disposed before the timer fired: no sync');
    scheduler.requestSoon();
    await delay(80);
    assert.equal(runs, 1, 'requestSoon() after dispose() does nothing');
  });
});
