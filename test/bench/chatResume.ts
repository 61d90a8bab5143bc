// A 2,000-message session resumed from Earlier sessions in the Chat view, measured in the real VS Code
// host (test/host/runHost.mjs, headless Chromium through playwright): the integration test "[bench] chat
// resume of a 2,000-message session" (test/integration/chatResume.test.ts) writes a realistic transcript,
// clicks it, and reports
// - chat_resume_2000_ms: from the click until the last reply shows in the list and the prompt takes text,
//   timed inside the webview with performance.now(); chat_resume_2000_snapshot_ms is the part until the
//   resumed session's items reach the webview (the host's share: reading the session, sending the items);
// - chat_resume_2000_dom_nodes: document.querySelectorAll('*').length in the chat's frame, the largest of:
//   when the resume shows, a second later, and after the wheel steps below;
// - chat_resume_2000_renderer_mb: growth across the resume of the resident memory (Linux /proc VmRSS) of the
//   browser's renderer processes, after a garbage collection (HeapProfiler.collectGarbage over the Chrome
//   DevTools Protocol): process memory, which counts the DOM; chat_resume_2000_js_heap_mb is the growth of
//   the webview renderer's JS heap alone (CDP Performance.getMetrics, JSHeapUsedSize);
// - chat_scroll_frame_p95_ms: the 95th percentile of requestAnimationFrame deltas while playwright turns
//   the mouse wheel 60 steps over the chat.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { type PlannedMetrics, requireTestHost } from './hostSetup';
import type { Metrics } from './run';

const PLANNED: PlannedMetrics = {
  chat_resume_2000_ms: { unit: 'ms', target: 1_000 },
  chat_resume_2000_dom_nodes: { unit: 'nodes', target: 3_000 },
  chat_resume_2000_renderer_mb: { unit: 'MB', target: 40 },
  chat_scroll_frame_p95_ms: { unit: 'ms', target: 33 },
};

const root = path.resolve(__dirname, '../..');

interface Measured {
  resumeMs: number;
  snapshotMs: number;
  domNodes: number;
  rendererMb: number;
  jsHeapMb: number;
  frameP95Ms: number;
}

export async function run(): Promise<Metrics> {
  requireTestHost(PLANNED, { vscode: true });
  if (!fs.existsSync(path.join(root, 'dist', 'test', 'integration', 'chatResume.test.js')))
    throw new Error('dist/test/integration/chatResume.test.js is missing: run `node esbuild.mjs` first');
  const out = path.join(root, 'test-artifacts', 'bench-chat-resume.json');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.rmSync(out, { force: true });
  const r = spawnSync(process.execPath, [path.join(root, 'test/host/runHost.mjs')], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env,
      ENGRAM_TEST_GREP: '[bench] chat resume of a 2,000-message session',
      ENGRAM_TEST_PHASES: 'main',
      ENGRAM_BENCH_OUT: out,
    },
  });
  if (r.status !== 0 || !fs.existsSync(out))
    throw new Error('the chat resume run in the VS Code host failed (see test-artifacts/integration)');
  const m = JSON.parse(fs.readFileSync(out, 'utf8')) as Measured;
  return {
    chat_resume_2000_ms: { value: round(m.resumeMs), unit: 'ms', target: 1_000 },
    chat_resume_2000_snapshot_ms: { value: round(m.snapshotMs), unit: 'ms' },
    chat_resume_2000_dom_nodes: { value: m.domNodes, unit: 'nodes', target: 3_000 },
    chat_resume_2000_renderer_mb: { value: round(m.rendererMb), unit: 'MB', target: 40 },
    chat_resume_2000_js_heap_mb: { value: round(m.jsHeapMb), unit: 'MB' },
    chat_scroll_frame_p95_ms: { value: round(m.frameP95Ms), unit: 'ms', target: 33 },
  };
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}
