// `engram -p "PROMPT"`: one turn headless, on the same engine and transcripts as the extension, so a
// session started here can be resumed in the editor and the reverse.
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { ENGRAM_VERSION, modelReady } from '../core/host/config';
import { autoMemoryDir } from '../core/host/memory';
import {
  type Logger,
  appendPromptHistory,
  createDefaultTools,
  DEFAULT_WRITER_WAIT_MS,
  describeHolder,
  formatWait,
  isValidSessionId,
  openHostSession,
  SessionNotFoundError,
  type ModelClient,
} from '../core/host/sessions';
import { formatBranchReport, formatProblem, type BranchReport, type TranscriptProblem } from '../core/host/transcripts';
import { isDirectory } from '../core/host/toolPolicy';
import { formatOptions, parseCommandArgs, UsageError, type OptionSpecs } from './args';
import { dataDirOf, defaultOf, readSettingsFile, settingsFromFlags } from './cliSettings';
import { reportProblems } from './cliTranscript';
import { EXIT_INTERRUPTED, EXIT_MODEL_ERROR, EXIT_OK, type CliIo, type Command } from './command';
import { noApiKeyText, resumeLine } from './cliText';
import { headlessRules, headlessToolGate, ruleFlagProblem, splitRuleList } from './toolPolicy';
import { MCP_HELP, MCP_OPTIONS, startCliMcp, type McpServerReport } from './mcpSetup';
import { cliSearch, SEARCH_OPTIONS } from './cliSearch';
import { cliModelConfig, modelFlag, PROVIDER_ENV_HELP, PROVIDER_OPTIONS, providerLine } from './cliProvider';

const OPTIONS = {
  print: { type: 'string', short: 'p', valueName: 'PROMPT', help: 'The prompt to run (required).' },
  resume: { type: 'string', short: 'r', valueName: 'ID', help: 'Continue session ID (same transcript file).' },
  cwd: { type: 'string', valueName: 'DIR', help: 'Project folder to work in (default: the current directory).' },
  'output-format': {
    type: 'string',
    valueName: 'FMT',
    help: 'text (default): the answer; json: {"result","sessionId","turns","usage","transcript"}.',
  },
  'allowed-tools': {
    type: 'string',
    valueName: 'LIST',
    help:
      'Comma-separated tools or rules that may run, e.g. Read,Grep,Edit,"Bash(npm test:*)",mcp__github. ' +
      'Only these run.',
  },
  'disallowed-tools': {
    type: 'string',
    valueName: 'LIST',
    help: 'Comma-separated tools or rules that never run, e.g. "Bash(git push:*)",Write. Beats every allow.',
  },
  'add-dir': {
    type: 'string',
    multiple: true,
    valueName: 'DIR',
    help: 'Another folder Write/Edit may write to (repeatable, or a comma list).',
  },
  model: { type: 'string', valueName: 'M', help: `Model name (default: ${defaultOf('model')}).` },
  ...PROVIDER_OPTIONS,
  'max-tokens': {
    type: 'string',
    valueName: 'N',
    help:
      'Output token limit per model call, at most what the model can write ' +
      `(default: ${defaultOf('maxOutputTokens')}).`,
  },
  'data-dir': {
    type: 'string',
    valueName: 'DIR',
    help: 'Where transcripts go (default: engram.dataDir, $ENGRAM_DATA_DIR or ~/.engram).',
  },
  'context-window': {
    type: 'string',
    valueName: 'N',
    help:
      "Context window in tokens, at most the model's; compaction marks are percentages of it " +
      `(default: ${defaultOf('contextWindow')}).`,
  },
  settings: {
    type: 'string',
    valueName: 'FILE',
    help: 'Start from a JSON object of engram.* settings, keys as in VS Code; the other flags override it.',
  },
  'no-memory': { type: 'boolean', help: 'Leave out the project memory (MEMORY.md index, recall, memory writes).' },
  'team-memory': {
    type: 'boolean',
    help:
      "Use the repository's team memory too " +
      '(on when ENGRAM_TEAM_SERVER is set; syncs with it using ENGRAM_TEAM_TOKEN).',
  },
  'extract-memories': {
    type: 'boolean',
    help: 'After the run, let a background agent save what is worth remembering (one more model call).',
  },
  ...MCP_OPTIONS,
  ...SEARCH_OPTIONS,
  verbose: {
    type: 'boolean',
    short: 'v',
    help: "Log warnings to stderr, and each retry's full reason (a retry is always said in one line).",
  },
  version: { type: 'boolean', help: 'Print the version and exit.' },
  help: { type: 'boolean', short: 'h', help: 'Show this help.' },
} satisfies OptionSpecs;

export const HELP = `Usage: engram -p "PROMPT" [options]

Runs one prompt to the end (the model may call tools several times) and prints the answer.

Options:
${formatOptions(OPTIONS)}

Tools: nobody can answer a permission prompt in a headless run, so the rule is fixed up front.
  Without --allowed-tools, only read-only tools run (Read, Glob, Grep, and Bash commands that only
  read, like ls or cat), and Write/Edit of memory files in the project's private memory folder (so
  "remember ..." saves; --no-memory turns memory off); anything else is denied and the model is told why.
  With --allowed-tools, exactly the listed tools run (read-only ones too), all others are denied.
  Entries are tools or rules in Claude Code's syntax: "Bash(npm test:*)" (a command and what follows
  it), "Edit(src/**)" (paths, gitignore-style), mcp__server or mcp__server__tool (MCP tools).
  --disallowed-tools takes the same and always wins. The rules of the user's settings
  (permissions.allow / permissions.deny in --settings, DATA_DIR/settings.json) and of the project
  (.engram/settings.json, .engram/settings.local.json) apply too: a deny rule refuses a call even when
  the tool is listed, an allow rule lets its calls run. A compound command (a && b, a | b) is allowed
  only when every part is.
  Write and Edit write only inside --cwd and the --add-dir folders (symlinks and .. resolved), and
  into the project's memory folder (with --allowed-tools, only when Write/Edit are listed). A listed
  Bash runs any command no deny rule names. Tool results are scanned for secrets (API keys, tokens, private keys), which
  are replaced by [REDACTED ...] before the model or the transcript sees them.

${MCP_HELP}

Environment: ANTHROPIC_API_KEY (required for the Anthropic API), ANTHROPIC_BASE_URL, ANTHROPIC_MODEL,
ENGRAM_DATA_DIR; ENGRAM_TEAM_SERVER and ENGRAM_TEAM_TOKEN for team memory (synced as the run starts and
after a team memory is written). Claude Code's provider environment is read the same way (docs/providers.md):
${PROVIDER_ENV_HELP}
Output: "turns" counts model calls. With json the object is printed even when the run fails, so
the sessionId can be resumed (null when not even the prompt could be written: there is no session).
Lines of a resumed transcript that were skipped or repaired are reported as
FILE:LINE: skipped|repaired: reason (on stderr; "problems" in json), and so is a transcript whose
conversation branches ("branches" in json; engram merge-branches FILE joins it).
Sessions: one writer at a time. A run of a session that another run (or a VS Code window's turn) is
writing waits for it, at most 10 minutes, then reads the transcript again and appends after it.
Exit codes: 0 done, 1 the model or API failed or the transcript could not be written (the reason is on
stderr), 2 usage error, 130 interrupted.`;

/** What the model is told in every headless run. */
export const HEADLESS_NOTE =
  'This is a headless run: nobody can answer questions or permission prompts until it ends. ' +
  'Finish the task, or say clearly what is missing.';

export const printCommand: Command = {
  name: 'print',
  summary: 'Run one prompt headless and print the answer (also: engram -p "PROMPT").',
  run: runPrint,
};

interface JsonOutput {
  result: string;
  /** Null (with transcript) when nothing could be written: there is no session to resume. */
  sessionId: string | null;
  turns: number;
  usage: {
    input_tokens: number;
    output_tokens: number;
    cache_creation_input_tokens: number;
    cache_read_input_tokens: number;
  };
  transcript: string | null;
  /** Only when resuming read past damaged lines: each with file, line and reason. */
  problems?: TranscriptProblem[];
  /** Only when the resumed transcript branches: where, and the lines of each branch. */
  branches?: BranchReport[];
  /** Only when MCP servers are configured: each with its state, tool count and failure. */
  mcp_servers?: McpServerReport[];
}

/** `client` is for tests that bring their own model; normally the Anthropic adapter is built here. */
export async function runPrint(argv: string[], io: CliIo, client?: ModelClient): Promise<number> {
  const { options, positionals } = parseCommandArgs(argv, OPTIONS);
  if (options.help) {
    io.stdout(`${HELP}\n`);
    return EXIT_OK;
  }
  if (options.version) {
    io.stdout(`${ENGRAM_VERSION}\n`);
    return EXIT_OK;
  }
  if (positionals.length > 0)
    throw new UsageError(`Unexpected argument: ${positionals[0]} (quote the prompt: -p "...")`);
  const prompt = options.print;
  if (prompt === undefined || prompt.trim() === '') throw new UsageError('A prompt is required: engram -p "PROMPT"');
  const format = options['output-format'] ?? 'text';
  if (format !== 'text' && format !== 'json')
    throw new UsageError(`--output-format must be text or json, not ${format}`);
  const resume = options.resume;
  if (resume !== undefined && !isValidSessionId(resume)) throw new UsageError(`Not a session id: ${resume}`);
  const cwd = path.resolve(io.cwd, options.cwd ?? '.');
  if (!(await isDirectory(cwd))) throw new UsageError(`--cwd is not a folder: ${cwd}`);
  const addDirs = (options['add-dir'] ?? [])
    .flatMap((v) => v.split(','))
    .map((d) => d.trim())
    .filter(Boolean)
    .map((d) => path.resolve(io.cwd, d));
  for (const dir of addDirs) if (!(await isDirectory(dir))) throw new UsageError(`--add-dir is not a folder: ${dir}`);

  const tools = createDefaultTools();
  const allowed = splitRuleList(options['allowed-tools']);
  const disallowed = splitRuleList(options['disallowed-tools']);
  const badRules = ruleFlagProblem({ '--allowed-tools': allowed, '--disallowed-tools': disallowed }, tools);
  if (badRules) throw new UsageError(badRules);

  const teamServer = io.env.ENGRAM_TEAM_SERVER?.trim() || undefined;
  const base =
    options.settings !== undefined
      ? await readSettingsFile(path.resolve(io.cwd, options.settings), options.settings)
      : undefined;
  const settings = settingsFromFlags(
    {
      model: modelFlag(options.model, base, io.env),
      maxOutputTokens: { flag: '--max-tokens', value: options['max-tokens'] },
      contextWindow: { flag: '--context-window', value: options['context-window'] },
      'memory.enabled': { flag: '--no-memory', value: options['no-memory'] ? false : undefined },
      // Naming a team server is opting in, as the setting is in VS Code.
      'teamMemory.enabled': {
        flag: '--team-memory',
        value: options['team-memory'] === true || teamServer !== undefined ? true : undefined,
      },
      'teamMemory.serverUrl': { flag: 'ENGRAM_TEAM_SERVER', value: teamServer },
      'search.ripgrepPath': { flag: '--rg-path', value: options['rg-path'] },
    },
    base,
  );
  // engram.dataDir and engram.baseUrl come from --settings only; as in VS Code they beat the environment.
  const dataDir = dataDirOf(io, options['data-dir'], settings.dataDir);
  // The session redacts its keys (and the cloud's secrets) from every tool result, whatever their shape.
  const config = cliModelConfig(settings, options.provider, io.env, base);
  if (!client && !modelReady(config)) {
    io.stderr(noApiKeyText(io.command));
    return EXIT_MODEL_ERROR;
  }
  const logger = stderrLogger(io, options.verbose === true);
  logger.info(providerLine(config, io.env));
  const mcpOptions = { configs: options['mcp-config'] ?? [], strict: options['strict-mcp-config'] === true };
  const mcp = await startCliMcp({ ...mcpOptions, dataDir, cwd, settings }, io, logger);
  const search = await cliSearch(io, settings, options['rg-path'] !== undefined, logger);
  let session;
  try {
    // Nobody can answer a permission prompt here: the host session denies every one it is asked.
    session = await openHostSession(
      {
        dataDir,
        cwd,
        ...(resume !== undefined ? { resumeSessionId: resume } : {}),
        // The session is this run's alone: a second run of it waits, then appends after this one.
        writer: {
          mode: 'run',
          signal: io.signal,
          onWait: (holder) =>
            io.stderr(
              `engram: ${describeHolder(holder)} is writing session ${resume}; ` +
                `waiting for it to finish (at most ${formatWait(DEFAULT_WRITER_WAIT_MS)}).\n`,
            ),
        },
        model: config,
        ...(client ? { client } : {}),
        trusted: true, // the person running the command chose this folder
        gate: headlessToolGate(allowed, {
          cwd,
          addDirs,
          // The folder the session's memory uses (same function, same arguments), when memory is on.
          ...(settings.memory.enabled ? { memoryDir: await autoMemoryDir(dataDir, cwd) } : {}),
          rules: await headlessRules({ dataDir, cwd, settings: settings.permissions, allowed, disallowed, tools, io }),
        }),
        memoryWritesNeedTool: true,
        ...(io.env.ENGRAM_TEAM_TOKEN?.trim() ? { teamMemory: { token: io.env.ENGRAM_TEAM_TOKEN.trim() } } : {}),
        tools,
        search,
        ...(mcp.hub ? { mcp: mcp.hub } : {}),
        version: ENGRAM_VERSION,
        entrypoint: 'cli',
        systemNotes: [HEADLESS_NOTE],
        // Background extraction costs a model call per turn: only when asked.
        extraction: options['extract-memories'] === true,
        logger,
      },
      settings,
    );
  } catch (e) {
    await mcp.close();
    if (io.signal.aborted) return interrupted(io);
    if (e instanceof SessionNotFoundError) throw new UsageError(e.message);
    throw e;
  }
  // Damaged lines of a resumed transcript are said always (a resume that quietly lost part of the
  // history is what issue #13 was about); in text on stderr, in JSON as "problems".
  const problems = session.resumed?.problems ?? [];
  if (format === 'text') reportProblems(io, problems);
  // So is a transcript that branches (two writers at once): the resume reads one branch only.
  const branches = session.resumed?.branches ?? [];
  const branchLines = branches.map((b) => formatBranchReport(session.transcriptPath, b));
  if (format === 'text') for (const line of branchLines) io.stderr(`engram: ${line}\n`);
  const said = new Set([...problems.map(formatProblem), ...branchLines]);
  for (const w of session.warnings) if (!said.has(w)) logger.warn(w);
  for (const notice of session.notices) io.stderr(`engram: ${notice}\n`);
  // A retry is said always (a run that waits in silence looks hung): its first sentence, or all of it with -v.
  session.agent.on((e) => {
    if (e.type !== 'retrying') return;
    const reason = options.verbose ? e.reason : firstSentence(e.reason);
    io.stderr(
      `engram: ${reason} Retrying in ${(e.delayMs / 1000).toFixed(1)} s (attempt ${e.attempt}/${e.maxRetries}).\n`,
    );
  });

  await appendPromptHistory(dataDir, {
    display: prompt,
    timestamp: Date.now(),
    project: cwd,
    sessionId: session.sessionId,
  }).catch((e: unknown) => logger.error('Could not write history.jsonl', e));
  session.on((e) => {
    if (e.type !== 'compaction') return;
    if (e.event.type === 'compacted')
      logger.info(
        `compacted (${e.event.event.stage}): ${e.event.event.tokensBefore} -> ${e.event.event.tokensAfter} tokens`,
      );
    if (e.event.type === 'autoCompactionStopped') logger.warn(`automatic compaction stopped: ${e.event.reason}`);
  });
  // One turn: no later one for a slow server's tools to join, so the first request waits for them (bounded).
  await mcp.settle(io.signal, allowed);
  const result = await session.runTurn(prompt, io.signal).finally(() => mcp.close());
  await session.finish();
  // A run whose first line could not be written (a full disk) left no transcript: no id to hand back.
  const written = ((await fsp.stat(session.transcriptPath).catch(() => undefined))?.size ?? 0) > 0;

  if (format === 'json') {
    const out: JsonOutput = {
      result: result.text,
      sessionId: written ? session.sessionId : null,
      turns: result.modelCalls,
      usage: {
        input_tokens: result.usage.input_tokens,
        output_tokens: result.usage.output_tokens,
        cache_creation_input_tokens: result.usage.cache_creation_input_tokens ?? 0,
        cache_read_input_tokens: result.usage.cache_read_input_tokens ?? 0,
      },
      transcript: written ? session.transcriptPath : null,
      ...(problems.length > 0 ? { problems } : {}),
      ...(branches.length > 0 ? { branches } : {}),
      ...(mcp.report().length > 0 ? { mcp_servers: mcp.report() } : {}),
    };
    io.stdout(`${JSON.stringify(out)}\n`);
  } else if (result.text) {
    io.stdout(result.text.endsWith('\n') ? result.text : `${result.text}\n`);
  }

  // The README's next command is `--resume ID`: text mode says the ID (on stderr: stdout stays the answer).
  if (format === 'text' && result.reason !== 'cancelled')
    io.stderr(await resumeLine(session.sessionId, session.transcriptPath, io.command));

  switch (result.reason) {
    case 'error':
      io.stderr(`engram: ${result.error?.message ?? 'the model call failed.'}\n`);
      return EXIT_MODEL_ERROR;
    case 'cancelled':
      io.stderr(`engram: interrupted. Resume with: engram --resume ${session.sessionId} -p "..."\n`);
      return EXIT_INTERRUPTED;
    case 'max_tokens':
      io.stderr('engram: the answer was cut at the output token limit (--max-tokens).\n');
      return EXIT_OK;
    case 'refusal':
      io.stderr('engram: the model declined to answer.\n');
      return EXIT_OK;
    default:
      return EXIT_OK;
  }
}

/** Ctrl-C before there was a session to resume. */
function interrupted(io: CliIo): number {
  io.stderr('engram: interrupted.\n');
  return EXIT_INTERRUPTED;
}

function stderrLogger(io: CliIo, verbose: boolean): Logger {
  return {
    info: (m) => {
      if (verbose) io.stderr(`engram: ${m}\n`);
    },
    warn: (m) => {
      if (verbose) io.stderr(`engram: warning: ${m}\n`);
    },
    error: (m, e) => io.stderr(`engram: ${m}${e instanceof Error ? `: ${e.message}` : ''}\n`),
  };
}

/** Up to the first ". " (a URL's dots are followed by no space). */
function firstSentence(text: string): string {
  const end = text.search(/\.\s/);
  return end === -1 ? text : text.slice(0, end + 1);
}
