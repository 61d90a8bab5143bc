// The words of a team sync (the notification of "Engram: Sync Team Memory" and the status bar's
// tooltip), and that every vscode.l10n.t text of the extension has its Simplified Chinese line with the
// same {n} arguments: a missing one would show English to a Chinese VS Code without any error.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { TeamSyncReport } from '../../../src/core/memory/team/teamSyncTypes';
import { describeTeamSync, TEAM_SYNC_WORDS, teamSyncTooltip } from '../../../src/vscode/teamSyncText';
import { translatedTexts } from './translatedTexts';

/** vscode.l10n.t without a bundle: the English template with its arguments. */
const en = (message: string, ...args: Array<string | number | boolean>): string =>
  message.replace(/\{(\d+)\}/g, (m, i: string) => (args[Number(i)] !== undefined ? String(args[Number(i)]) : m));

function report(over: Partial<TeamSyncReport> = {}): TeamSyncReport {
  return {
    repo: 'acme/widgets',
    server: 'http://127.0.0.1:9',
    at: '2026-12-02T01:00:00.000Z',
    ok: true,
    pulled: [],
    pushed: [],
    skipped: [],
    blocked: [],
    retries: 0,
    ...over,
  };
}

const root = path.resolve(__dirname, '../../..');
const placeholders = (s: string) =>
  [...s.matchAll(/\{(\d+)\}/g)]
    .map((m) => m[1])
    .sort()
    .join(',');

describe('team sync in words', () => {
  it('counts what moved; a clean sync is an information', () => {
    const m = describeTeamSync(
      report({
        pulled: [
          { path: 'a.md', reason: 'new' },
          { path: 'b.md', reason: 'updated' },
        ],
        pushed: [{ path: 'c.md' }],
      }),
      en,
    );
    assert.deepEqual(m, {
      level: 'info',
      text: 'Engram: team memory of acme/widgets synced: 2 pulled, 1 pushed, 0 skipped, 0 blocked.',
    });
  });

  it('names each file held back or replaced, and why, as a warning', () => {
    const m = describeTeamSync(
      report({
        blocked: [{ path: 'ci.md', rule: '@secretlint/secretlint-rule-github', kind: 'github', line: 7 }],
        skipped: [{ path: 'big.md', reason: 'too_large', detail: '300 KB, over the 250 KB limit' }],
        pulled: [{ path: 'style.md', reason: 'conflict', keptAt: '.conflicts/style.2026.md' }],
      }),
      en,
    );
    assert.equal(m.level, 'warning');
    assert.equal(
      m.text,
      [
        'Engram: team memory of acme/widgets synced: 1 pulled, 0 pushed, 1 skipped, 1 blocked.',
        'ci.md was not uploaded: it holds a secret (github, rule @secretlint/secretlint-rule-github, line 7). Remove the secret, then sync again.',
        'big.md was not uploaded: 300 KB, over the 250 KB limit.',
        "style.md: the server's version won; your edit is kept at .conflicts/style.2026.md.",
      ].join(' '),
    );
  });

  it('names at most three files and points to the inspector for the rest', () => {
    const blocked = ['a', 'b', 'c', 'd', 'e'].map((n, i) => ({ path: `${n}.md`, rule: 'r', kind: 'k', line: i + 1 }));
    const m = describeTeamSync(report({ blocked }), en);
    assert.equal((m.text.match(/was not uploaded/g) ?? []).length, 3);
    assert.match(m.text, /…and 2 more \(see the Memory Inspector\)\.$/);
  });

  it("a failed sync is an error with the client's reason", () => {
    const m = describeTeamSync(report({ ok: false, error: 'the server refused the token (401)' }), en);
    assert.deepEqual(m, {
      level: 'error',
      text: 'Engram: the team memory sync of acme/widgets failed: the server refused the token (401)',
    });
  });

  it('the tooltip line: never, synced with counts, failed with the reason', () => {
    const time = (iso: string) => `<${iso}>`;
    assert.equal(teamSyncTooltip(null, en, time), 'Team memory: not synced yet.');
    assert.equal(
      teamSyncTooltip(report({ pushed: [{ path: 'x.md' }] }), en, time),
      'Team memory of acme/widgets: last sync <2026-12-02T01:00:00.000Z>, 0 pulled, 1 pushed, 0 skipped, 0 blocked.',
    );
    assert.equal(
      teamSyncTooltip(report({ ok: false, error: 'connection refused' }), en, time),
      'Team memory of acme/widgets: the last sync (<2026-12-02T01:00:00.000Z>) failed: connection refused',
    );
  });

  it('every vscode.l10n.t text of the extension and every sync template has a zh-CN line with the same arguments', () => {
    const bundle = JSON.parse(fs.readFileSync(path.join(root, 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<
      string,
      string
    >;
    const texts = new Set<string>(Object.values(TEAM_SYNC_WORDS));
    const walk = (dir: string): string[] =>
      fs
        .readdirSync(dir, { withFileTypes: true })
        .flatMap((e) =>
          e.isDirectory() ? walk(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
        );
    for (const file of [...walk(path.join(root, 'src', 'vscode')), path.join(root, 'src', 'extension.ts')]) {
      for (const text of translatedTexts(fs.readFileSync(file, 'utf8'), String.raw`l10n\.t`)) texts.add(text);
    }
    assert.ok(texts.size > 40, `found only ${texts.size} texts: the scan is broken`);
    const missing = [...texts].filter((s) => bundle[s] === undefined);
    assert.deepEqual(missing, [], 'texts without a Chinese line');
    const mismatched = [...texts].filter((s) => placeholders(s) !== placeholders(bundle[s]));
    assert.deepEqual(mismatched, [], 'Chinese lines whose {n} arguments differ');
  });
});
