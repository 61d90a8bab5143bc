// What the person decided about a project's MCP servers, kept per project under the data dir
// (`<dataDir>/projects/<projectKey>/mcp-choices.json`, never in the repository): which repository servers
// they approved (by the fingerprint of the entry they saw), and which servers and single tools they turned
// off. mcpStartPolicy is the one rule both hosts use to decide whether a server may start.
import fsp from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { projectDir } from '../conversation/projectKey';
import { writeFileAtomic } from '../fs/atomicWrite';
import { REPOSITORY_SOURCES, type McpServerEntry, type McpServerState } from './types';

export interface McpProjectChoices {
  /** Server name -> the fingerprint of the entry the person approved. */
  approved: Record<string, string>;
  disabledServers: string[];
  /** `${server}/${rawToolName}`. */
  disabledTools: string[];
}

const choicesSchema = z.object({
  approved: z.record(z.string(), z.string()).catch({}),
  disabledServers: z.array(z.string()).catch([]),
  disabledTools: z.array(z.string()).catch([]),
});

function choicesFile(dataDir: string, projectRoot: string): string {
  return path.join(projectDir(dataDir, projectRoot), 'mcp-choices.json');
}

function noChoices(): McpProjectChoices {
  return { approved: {}, disabledServers: [], disabledTools: [] };
}

/** The project's choices; none yet (or a file that is not ours to understand) reads as no choices. */
export async function readMcpChoices(dataDir: string, projectRoot: string): Promise<McpProjectChoices> {
  let text: string;
  try {
    text = await fsp.readFile(choicesFile(dataDir, projectRoot), 'utf8');
  } catch {
    return noChoices();
  }
  try {
    const parsed = choicesSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : noChoices();
  } catch {
    return noChoices();
  }
}

/** Reads, changes and writes back (atomically) the project's choices; returns what was written. */
export async function updateMcpChoices(
  dataDir: string,
  projectRoot: string,
  change: (c: McpProjectChoices) => McpProjectChoices,
): Promise<McpProjectChoices> {
  const next = change(await readMcpChoices(dataDir, projectRoot));
  await writeFileAtomic(choicesFile(dataDir, projectRoot), `${JSON.stringify(next, null, 2)}\n`);
  return next;
}

/**
 * The start rule both hosts use: a disabled server stays off; a repository's server (project `.mcp.json`,
 * `.vscode/mcp.json`) needs a trusted workspace and an approval, either of this very entry (its fingerprint
 * in the choices) or by name in `approvedNames` (`engram.mcp.approvedProjectServers`). The person's own
 * servers and the CLI's start when not disabled.
 */
export function mcpStartPolicy(opts: {
  trusted: boolean;
  choices: McpProjectChoices;
  approvedNames: readonly string[];
}): (entry: McpServerEntry) => McpServerState | true {
  return (entry) => {
    if (opts.choices.disabledServers.includes(entry.name)) return 'disabled';
    if (!REPOSITORY_SOURCES.has(entry.source)) return true;
    if (!opts.trusted) return 'untrusted';
    if (opts.choices.approved[entry.name] === entry.fingerprint) return true;
    return opts.approvedNames.includes(entry.name) ? true : 'needsApproval';
  };
}
