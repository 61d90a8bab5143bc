// Entry point of the `engram` command (bundled to dist/cli.js). Wires the dispatcher to the real
// process: stdout/stderr, environment, Ctrl-C, exit code.
import { invokedAs } from './cliText';
import { runCli } from './dispatcher';

async function main(): Promise<void> {
  // `engram gauge FILE | head`: the reader left, which is not an error worth a stack trace.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  });
  const controller = new AbortController();
  let interrupts = 0;
  process.on('SIGINT', () => {
    // First Ctrl-C ends the turn cleanly (the transcript stays valid); a second one leaves at once.
    if (++interrupts > 1) process.exit(130);
    controller.abort();
  });
  const code = await runCli(process.argv.slice(2), {
    stdout: (text) => process.stdout.write(text),
    drained: () =>
      process.stdout.writableNeedDrain ? new Promise((done) => process.stdout.once('drain', done)) : Promise.resolve(),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
    signal: controller.signal,
    command: invokedAs(process.argv[1], process.cwd(), process.env.PATH),
  });
  process.exitCode = code;
}

void main();
