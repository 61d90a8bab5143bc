// Concurrency and crashes on the team-memory server: racing PUTs to one repository, two server
// processes on one storage, and kill -9 in the middle of a stream of PUTs. Real processes, real HTTP.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sha256Hex } from '../../../packages/team-server/src/teamStore';
import { errorOf, RepoClient, useTeamServers, type Backend } from './teamServerSuite';

/** PUTs `entries` on top of whatever the repository holds, taking the version from each 412, until one is stored. */
async function putUntilStored(
  client: RepoClient,
  entries: Record<string, string>,
): Promise<{ version: number; conflicts: number }> {
  let base = (await client.pull()).version;
  for (let conflicts = 0; conflicts < 500; conflicts++) {
    const res = await client.put(base, { entries });
    if (res.status === 200) return { version: ((await res.json()) as { version: number }).version, conflicts };
    const err = await errorOf(res);
    assert.equal(err.status, 412, err.message);
    base = err.version!;
  }
  throw new Error('500 conflicts in a row');
}

export function defineTeamConcurrencyTests(backend: Backend): void {
  describe(`team memory server under concurrency and crashes (${backend})`, () => {
    const servers = useTeamServers(backend, 'concurrency');

    it('20 concurrent PUTs with the same If-Match: exactly one is stored, the others get 412 with its version', async () => {
      const server = await servers.start();
      const c = await servers.newRepo(server);
      await c.push(0, { 'base.md': 'base' });
      const replies = await Promise.all(
        Array.from({ length: 20 }, (_, i) => c.put(1, { entries: { 'race.md': `writer ${i}`, [`w${i}.md`]: `${i}` } })),
      );
      const ok = replies.filter((r) => r.status === 200);
      assert.equal(ok.length, 1, `statuses: ${replies.map((r) => r.status).join(' ')}`);
      for (const r of replies.filter((x) => x.status !== 200)) {
        const err = await errorOf(r);
        assert.deepEqual([err.status, err.version], [412, 2]);
      }
      const stored = await server.readStored(c.repo);
      const winner = /writer (\d+)/.exec(stored.entries['race.md'])![1];
      assert.deepEqual(stored.entries, { 'base.md': 'base', 'race.md': `writer ${winner}`, [`w${winner}.md`]: winner });
      assert.equal(stored.version, 2);
    });

    it("two server processes on one storage serialise PUTs: one winner per version, every writer's files kept", async () => {
      const a = await servers.start();
      const b = await servers.start();
      const repo = await servers.newRepo(a);
      const via = [repo, new RepoClient(b, repo.repo, repo.token)];
      // The same If-Match through both instances at once: one of all of them wins.
      const race = await Promise.all(
        Array.from({ length: 10 }, (_, i) => via[i % 2].put(0, { entries: { 'race.md': `${i}` } })),
      );
      assert.equal(race.filter((r) => r.status === 200).length, 1, `statuses: ${race.map((r) => r.status).join(' ')}`);
      // Six writers, alternating instances, each adding 6 files of its own with pull-and-retry.
      const writers = 6;
      const files = 6;
      const versions: number[] = [];
      let conflicts = 0;
      await Promise.all(
        Array.from({ length: writers }, async (_, w) => {
          for (let f = 0; f < files; f++) {
            const r = await putUntilStored(via[(w + f) % 2], {
              [`w${w}/f${f}.md`]: `writer ${w} file ${f}\n`.repeat(w + f + 1),
            });
            versions.push(r.version);
            conflicts += r.conflicts;
          }
        }),
      );
      assert.equal(new Set(versions).size, writers * files, 'no two PUTs got the same version');
      const stored = await b.readStored(repo.repo);
      assert.equal(stored.version, 1 + writers * files);
      assert.deepEqual(
        versions.sort((x, y) => x - y),
        Array.from({ length: writers * files }, (_, i) => i + 2),
      );
      for (let w = 0; w < writers; w++) {
        for (let f = 0; f < files; f++)
          assert.equal(stored.entries[`w${w}/f${f}.md`], `writer ${w} file ${f}\n`.repeat(w + f + 1));
      }
      assert.deepEqual(await via[1].pull(), { repo: repo.repo, ...stored }, 'both instances serve the same state');
      assert.ok(conflicts > 0, 'the writers did race');
    });

    it('kill -9 during a stream of PUTs, restart on the same storage: every acknowledged PUT is there, intact, and no PUT is half stored', async () => {
      const server = await servers.start();
      const streams = await Promise.all([servers.newRepo(server), servers.newRepo(server)]);
      const acked = streams.map(() => [] as Array<{ version: number; i: number }>);
      const content = (i: number): string => `entry ${i}\n${'x'.repeat(1000 + i * 37)}\n`;
      let killed = false;
      const writer = async (s: number): Promise<void> => {
        const c = streams[s];
        let version = 0;
        for (let i = 0; i < 400 && !killed; i++) {
          try {
            const res = await c.put(version, { entries: { [`f${i}.md`]: content(i), 'latest.md': `${i}` } });
            if (res.status !== 200) throw new Error(`status ${res.status}`);
            version = ((await res.json()) as { version: number }).version;
            acked[s].push({ version, i });
          } catch (err) {
            if (killed) return; // the connection died with the server: that PUT was never acknowledged
            throw err;
          }
        }
      };
      const writing = Promise.all(streams.map((_, s) => writer(s)));
      while (acked[0].length < 25 || acked[1].length < 25) await new Promise((r) => setTimeout(r, 5));
      killed = true;
      await server.kill('SIGKILL');
      await writing;
      await server.restart();
      for (const [s, c] of streams.entries()) {
        const stored = await server.readStored(c.repo);
        const last = acked[s][acked[s].length - 1];
        assert.ok(
          stored.version === last.version || stored.version === last.version + 1,
          `stored ${stored.version}, last acknowledged ${last.version}`,
        );
        // The one PUT in flight at the kill is either wholly there (its version, its file, latest.md) or not at all.
        const top = stored.version === last.version ? last.i : last.i + 1;
        assert.equal(stored.entries['latest.md'], `${top}`);
        assert.equal(Object.keys(stored.entries).length, top + 2);
        for (let i = 0; i <= top; i++) {
          assert.equal(stored.entries[`f${i}.md`], content(i), `f${i}.md`);
          assert.equal(stored.checksums[`f${i}.md`], sha256Hex(content(i)));
        }
        assert.deepEqual(await c.pull(), { repo: c.repo, ...stored }, 'the restarted server serves it');
        assert.equal((await c.push(stored.version, { 'after.md': 'restart' })).version, stored.version + 1);
      }
    });
  });
}
