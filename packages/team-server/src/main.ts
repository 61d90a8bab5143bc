// Entry of the reference team-memory server (bundled to dist/teamServer.js; `npm run team-server`).
// `--help` lists the commands and options; the rest of this folder is the server.
import { runTeamServerCli } from './teamServerCli';

void runTeamServerCli(process.argv.slice(2));
