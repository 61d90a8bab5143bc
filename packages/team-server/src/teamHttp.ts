// The reference team-memory server's HTTP side (fastify): the routes of core/memory/team/teamProtocol.ts,
// bearer tokens checked before a body is read, JSON errors everywhere, and its own secret scan of every
// PUT (defence in depth: a client that skipped its scan still cannot store a key here).
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  etagOf,
  RepoSlug,
  TEAM_MAX_FILE_BYTES,
  TEAM_MEMORY_ROUTE,
  TeamPutBody,
  versionOfEtag,
  type TeamErrorBody,
  type TeamMemoryBody,
  type TeamPutReply,
} from '../../../src/core/memory/team/teamProtocol';
import { scanSecrets } from '../../../src/core/security/secretScan';
import { sha256Hex, type TeamStore } from './teamStore';

export interface TeamServerLimits {
  /** Most entries one repository may hold. */
  maxEntries: number;
  /** Largest request body accepted, in bytes. */
  maxBodyBytes: number;
}

export const DEFAULT_LIMITS: TeamServerLimits = {
  maxEntries: 500,
  // Five times the client's 200 KB batch: room for JSON escaping, far below anything that hurts.
  maxBodyBytes: 1024 * 1024,
};

export interface TeamAppOptions extends TeamServerLimits {
  store: TeamStore;
  /** One line per request (method, route, repo, status, ms); omit for none. */
  log?: (line: string) => void;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The repository of a team-memory request, set once its token was checked. */
    teamRepo: string | null;
  }
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: TeamErrorBody,
  ) {
    super(body.message);
  }
}

function fail(status: number, body: TeamErrorBody): never {
  throw new HttpError(status, body);
}

function send(reply: FastifyReply, status: number, body: TeamErrorBody): FastifyReply {
  return reply.code(status).type('application/json').send(body);
}

/** Checks the repository and the bearer token; runs before the body is read, so a stranger's 10 MB are never parsed. */
async function authorize(store: TeamStore, req: FastifyRequest): Promise<string> {
  const repo = RepoSlug.safeParse((req.query as Record<string, unknown>).repo);
  if (!repo.success)
    fail(400, { error: 'bad_request', message: 'the query must name the repository: ?repo=owner/repo' });
  const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  if (!m) fail(401, { error: 'unauthorized', message: 'an Authorization: Bearer <token> header is required' });
  const tokenRepo = await store.lookupToken(sha256Hex(m[1]));
  if (tokenRepo === null) fail(401, { error: 'unauthorized', message: 'unknown token' });
  if (tokenRepo !== repo.data) fail(403, { error: 'forbidden', message: `this token does not open ${repo.data}` });
  return repo.data;
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** Between entries scanned as one text: no rule's match runs across a blank line and a NUL. */
const SCAN_SEPARATOR = '\n\n\u0000\n\n';

/**
 * Every secret in the entries, by path and line. One scan of all of them joined: the scanner costs a few
 * milliseconds a call whatever the size, and a batch holds many small files.
 */
async function scanEntries(entries: Record<string, string>): Promise<NonNullable<TeamErrorBody['findings']>> {
  const starts: Array<{ path: string; start: number; content: string }> = [];
  let text = '';
  for (const [path, content] of Object.entries(entries)) {
    if (text) text += SCAN_SEPARATOR;
    starts.push({ path, start: text.length, content });
    text += content;
  }
  // env {}: only the rules, never this server's own credentials.
  const found = await scanSecrets(text, { env: {} });
  return found.map((f) => {
    let at = starts[0];
    for (const s of starts) if (s.start <= f.start) at = s;
    return { path: at.path, rule: f.ruleId, line: lineOf(at.content, f.start - at.start) };
  });
}

/** The entries of a PUT body, checked: paths, sizes, characters PostgreSQL cannot store. */
function parseEntries(body: unknown): Record<string, string> {
  const parsed = TeamPutBody.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ` : '';
    fail(400, { error: 'bad_request', message: `bad body: ${where}${issue.message}` });
  }
  const entries = parsed.data.entries;
  for (const [path, content] of Object.entries(entries)) {
    if (Buffer.byteLength(content, 'utf8') > TEAM_MAX_FILE_BYTES) {
      fail(413, {
        error: 'payload_too_large',
        message: `${path} is over ${TEAM_MAX_FILE_BYTES} bytes`,
        maxBytes: TEAM_MAX_FILE_BYTES,
      });
    }
    if (content.includes('\u0000')) fail(400, { error: 'bad_request', message: `${path} contains a NUL character` });
  }
  return entries;
}

/** 422 if the server's own scan finds a secret in any entry: then nothing of the PUT is stored. */
async function refuseSecrets(entries: Record<string, string>): Promise<void> {
  const findings = await scanEntries(entries);
  if (findings.length > 0) {
    const paths = [...new Set(findings.map((f) => f.path))].join(', ');
    fail(422, { error: 'secret_detected', message: `secrets found in ${paths}: nothing was stored`, findings });
  }
}

/** How much of a refused body is read and thrown away before the 413 goes out (see drain). */
const DRAIN_MAX_BYTES = 64 * 1024 * 1024;
const DRAIN_MAX_MS = 30_000;

/**
 * Reads and discards the rest of a request body. A reply sent while the client is still writing ends
 * in EPIPE on its side, so it never sees the 413 (nor learns maxBytes); past these caps it may.
 */
function drain(req: IncomingMessage): Promise<void> {
  if (req.complete || req.readableEnded || req.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let seen = 0;
    const done = (): void => {
      clearTimeout(timer);
      req.off('data', onData).off('end', done).off('error', done).off('close', done);
      resolve();
    };
    const onData = (chunk: Buffer): void => {
      seen += chunk.length;
      if (seen > DRAIN_MAX_BYTES) done();
    };
    const timer = setTimeout(done, DRAIN_MAX_MS);
    req.on('data', onData).once('end', done).once('error', done).once('close', done);
    req.resume();
  });
}

function ifNoneMatchHits(header: string | undefined, version: number): boolean {
  return (header ?? '').split(',').some((tag) => tag.trim() === '*' || versionOfEtag(tag) === version);
}

export function buildTeamApp(opts: TeamAppOptions): FastifyInstance {
  const { store, maxEntries, maxBodyBytes, log } = opts;
  const app = Fastify({ bodyLimit: maxBodyBytes, logger: false, return503OnClosing: true });
  app.decorateRequest('teamRepo', null);

  app.setErrorHandler(async (err: Error & { statusCode?: number; code?: string }, req, reply) => {
    if (err instanceof HttpError) return send(reply, err.status, err.body);
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      await drain(req.raw);
      return send(reply, 413, {
        error: 'payload_too_large',
        message: `the body is over ${maxBodyBytes} bytes`,
        maxBytes: maxBodyBytes,
      });
    }
    const status = err.statusCode ?? 500;
    if (status >= 400 && status < 500) return send(reply, status, { error: 'bad_request', message: err.message });
    process.stderr.write(`team server: ${req.method} ${req.url}: ${err.stack ?? err.message}\n`);
    return send(reply, 500, { error: 'internal', message: 'internal error (see the server log)' });
  });
  app.setNotFoundHandler((req, reply) =>
    send(reply, 404, { error: 'not_found', message: `no route ${req.method} ${req.url.split('?')[0]}` }),
  );

  if (log) {
    app.addHook('onResponse', async (req, reply) => {
      const repo = req.teamRepo ?? (req.query as Record<string, unknown> | undefined)?.repo;
      const route = req.routeOptions.url ?? req.url.split('?')[0];
      const repoPart = typeof repo === 'string' ? ` repo=${repo}` : '';
      log(`${req.method} ${route}${repoPart} ${reply.statusCode} ${reply.elapsedTime.toFixed(1)}ms`);
    });
  }

  app.get('/healthz', async (_req, reply) => {
    try {
      await store.ping();
      return { ok: true, store: store.description };
    } catch (err) {
      return send(reply, 503, { error: 'internal', message: `storage unreachable: ${(err as Error).message}` });
    }
  });

  const authHook = async (req: FastifyRequest): Promise<void> => {
    req.teamRepo = await authorize(store, req);
  };

  app.get(TEAM_MEMORY_ROUTE, { onRequest: authHook }, async (req, reply) => {
    const repo = req.teamRepo!;
    const snapshot = await store.get(repo);
    reply.header('etag', etagOf(snapshot.version)).header('cache-control', 'no-cache');
    if (ifNoneMatchHits(req.headers['if-none-match'], snapshot.version)) return reply.code(304).send();
    const body: TeamMemoryBody = { repo, ...snapshot };
    return body;
  });

  app.put(TEAM_MEMORY_ROUTE, { onRequest: authHook }, async (req, reply) => {
    const repo = req.teamRepo!;
    const ifMatch = req.headers['if-match'];
    if (ifMatch === undefined) {
      fail(428, {
        error: 'precondition_required',
        message: 'a PUT needs If-Match: "<version>" (the ETag of your last GET)',
      });
    }
    const base = versionOfEtag(ifMatch);
    if (base === null)
      fail(400, { error: 'bad_request', message: `If-Match must be a version ETag such as "3", not ${ifMatch}` });
    const entries = parseEntries(req.body);
    const conflict = (version: number): FastifyReply =>
      send(reply.header('etag', etagOf(version)), 412, {
        error: 'precondition_failed',
        message: `the repository is at version ${version}: pull and retry`,
        version,
      });
    // A PUT already behind is refused before the scan, the costly part; the transaction checks again.
    const now = await store.version(repo);
    if (now !== base) return conflict(now);
    await refuseSecrets(entries);
    const result = await store.put(repo, base, entries, maxEntries);
    if (!result.ok && result.reason === 'conflict') return conflict(result.version);
    if (!result.ok) {
      return send(reply, 413, {
        error: 'too_many_entries',
        message: `a repository holds at most ${result.maxEntries} entries here`,
        maxEntries: result.maxEntries,
      });
    }
    const body: TeamPutReply = { repo, version: result.version, checksums: result.checksums };
    return reply.header('etag', etagOf(result.version)).send(body);
  });

  return app;
}

export interface RunningTeamServer {
  url: string;
  port: number;
  /** Stops taking requests, finishes those in flight, then closes the storage. */
  close(): Promise<void>;
}

export async function listenTeamServer(
  opts: TeamAppOptions & { host: string; port: number },
): Promise<RunningTeamServer> {
  const app = buildTeamApp(opts);
  await app.listen({ host: opts.host, port: opts.port });
  const { port } = app.server.address() as AddressInfo;
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return {
    url: `http://${host}:${port}`,
    port,
    close: async () => {
      await app.close();
      await opts.store.close();
    },
  };
}
