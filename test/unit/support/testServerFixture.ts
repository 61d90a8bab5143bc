// The Anthropic-compatible test server, as most engine tests use it: one server for the file (or the
// describe() that calls this), with a check after each test that every scripted reply was used.
import assert from 'node:assert/strict';
import { after, afterEach, before } from 'node:test';
import { startTestServer, type TestServer, type TestServerOptions } from '../../../src/testServer/anthropicTestServer';

export interface TestServerFixtureOptions extends TestServerOptions {
  /**
   * Runs after each test before the queue is checked, e.g. to wait for a background agent that may
   * still take a scripted reply.
   */
  settle?: () => unknown;
}

export interface TestServerFixture extends TestServer {
  /**
   * Resolves once the server is up. Another before() at the top of a file must await it first: on
   * Node 20, top-level before() hooks do not wait for each other (inside a describe() they do).
   */
  ready(): Promise<void>;
}

/**
 * Starts a test server before the first test and closes it after the last. After each test it runs
 * `settle`, checks that no scripted reply was left over, and puts back the responder the options gave.
 * The returned object stands for the server that starts in before(), so it can be held in a const at
 * the top of the file; using it before then throws.
 */
export function useTestServer(options: TestServerFixtureOptions = {}): TestServerFixture {
  const { settle, ...serverOptions } = options;
  let starting: Promise<TestServer> | undefined;
  let started: TestServer | undefined;
  const start = async (): Promise<void> => {
    started = await (starting ??= startTestServer(serverOptions));
  };
  const live = (): TestServer => {
    if (!started) throw new Error('The test server starts in before(): use it inside a test or a hook.');
    return started;
  };
  before(start);
  afterEach(async () => {
    await settle?.();
    const server = live();
    const left = server.pending();
    server.setResponder(serverOptions.responder);
    assert.equal(left, 0, 'every queued reply was used');
  });
  after(() => started?.close());
  return {
    ready: start,
    get url() {
      return live().url;
    },
    get port() {
      return live().port;
    },
    get requests() {
      return live().requests;
    },
    get counts() {
      return live().counts;
    },
    get metadataRequests() {
      return live().metadataRequests;
    },
    enqueue: (...replies) => live().enqueue(...replies),
    setResponder: (fn) => live().setResponder(fn),
    pending: () => live().pending(),
    resetCache: () => live().resetCache(),
    expireVertexTokens: () => live().expireVertexTokens(),
    setVertexMetadata: (mode) => live().setVertexMetadata(mode),
    expireFoundryTokens: () => live().expireFoundryTokens(),
    setFoundryIdentity: (mode) => live().setFoundryIdentity(mode),
    close: () => live().close(),
  };
}
