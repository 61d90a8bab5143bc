// Tiny MCP servers that misbehave, written into a test's temp dir: built on the SDK's low-level Server so
// they can list what the high-level one refuses (schemas the API rejects, odd names) and answer 10 MB.
import path from 'node:path';
import { script } from './mcpTestSupport';

const SDK = path.resolve('node_modules/@modelcontextprotocol/sdk/dist/cjs');

/** A server with a 10 MB tool, a rejected schema, odd names, a slow tool that notes its cancel, and a crash. */
export function writeTrickyServer(dir: string): string {
  const marker = path.join(dir, 'cancelled.txt');
  return script(
    dir,
    'tricky.cjs',
    `
const { Server } = require(${JSON.stringify(`${SDK}/server/index.js`)});
const { StdioServerTransport } = require(${JSON.stringify(`${SDK}/server/stdio.js`)});
const { ListToolsRequestSchema, CallToolRequestSchema } = require(${JSON.stringify(`${SDK}/types.js`)});
const fs = require('node:fs');
const server = new Server({ name: 'tricky', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
let grown = false;
const obj = { type: 'object', properties: {} };
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [
  { name: 'big', description: 'ten megabytes', inputSchema: obj },
  { name: 'either', description: 'top-level oneOf', inputSchema: { type: 'object', oneOf: [{ required: ['a'] }, { required: ['b'] }] } },
  { name: 'untyped', description: 'no type', inputSchema: { properties: { q: { type: 'string' } } } },
  { name: 'get weather!', description: 'odd name', inputSchema: obj },
  { name: '${'x'.repeat(80)}', description: 'long name one', inputSchema: obj },
  { name: '${'x'.repeat(79)}y', description: 'long name two', inputSchema: obj },
  { name: 'slow', description: 'waits until cancelled', inputSchema: obj },
  { name: 'crash', description: 'exits mid-call', inputSchema: obj },
  { name: 'pid', description: 'says its pid', inputSchema: obj },
  { name: 'long', description: 'd'.repeat(5000), inputSchema: obj },
  { name: 'grow', description: 'adds a tool and says so', inputSchema: obj },
  ...(grown ? [{ name: 'extra', description: 'joined later', inputSchema: obj }] : []),
] }));
server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
  const name = req.params.name;
  if (name === 'big') return { content: [{ type: 'text', text: 'line of output\\n'.repeat(700000) }] };
  if (name === 'grow') { grown = true; await server.sendToolListChanged(); return { content: [{ type: 'text', text: 'grown' }] }; }
  if (name === 'pid') return { content: [{ type: 'text', text: String(process.pid) }] };
  if (name === 'crash') { process.stderr.write('about to crash\\n'); process.exit(3); }
  if (name === 'slow') {
    await new Promise((resolve) => extra.signal.addEventListener('abort', resolve));
    fs.writeFileSync(${JSON.stringify(marker)}, 'cancelled: ' + String(extra.signal.reason ?? ''));
    return { content: [{ type: 'text', text: 'too late' }] };
  }
  return { content: [{ type: 'text', text: 'ok ' + name }] };
});
server.connect(new StdioServerTransport());
`,
  );
}
