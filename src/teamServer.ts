// Entry of the reference team-memory server (bundled to dist/teamServer.js; `npm run team-server`).
// `--help` lists the commands and options; src/server/team/ holds the server.
import { runTeamServerCli } from './server/team/teamServerCli';

void runTeamServerCli(process.argv.slice(2));
