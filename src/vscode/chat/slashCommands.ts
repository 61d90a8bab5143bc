// The chat's slash commands, as a table: each names what it does with the rest of the line. A line
// that is not one of these goes to the model as typed.
export interface SlashHost {
  newChat(): void;
  help(): void;
  showContext(): void;
  openMemory(): Promise<void>;
  remember(text: string): Promise<void>;
  compact(stage: 'auto' | 'full', focus?: string): Promise<boolean>;
}

interface SlashCommand {
  name: string;
  /** False: the command takes no text after its name. */
  takesText: boolean;
  run(host: SlashHost, text: string): Promise<unknown> | void;
}

const COMMANDS: readonly SlashCommand[] = [
  // Answered here: the model is never asked what the chat's own commands are.
  { name: 'help', takesText: false, run: (host) => host.help() },
  { name: 'context', takesText: false, run: (host) => host.showContext() },
  { name: 'memory', takesText: false, run: (host) => host.openMemory() },
  { name: 'new', takesText: false, run: (host) => host.newChat() },
  { name: 'remember', takesText: true, run: (host, text) => (text ? host.remember(text) : undefined) },
  // With a focus the summary must be written by the model; without one the stages run in order.
  { name: 'compact', takesText: true, run: (host, text) => host.compact(text ? 'full' : 'auto', text || undefined) },
];

/** Runs `line` when it is a slash command; false when it is a prompt for the model. */
export async function runSlashCommand(host: SlashHost, line: string): Promise<boolean> {
  const match = /^\/([a-z]+)(?:\s+([\s\S]*))?$/.exec(line.trim());
  if (!match) return false;
  const command = COMMANDS.find((c) => c.name === match[1]);
  const text = match[2]?.trim() ?? '';
  if (!command || (!command.takesText && text)) return false;
  // `/remember` alone is not a request to remember nothing: it is sent as typed.
  if (command.name === 'remember' && !text) return false;
  await command.run(host, text);
  return true;
}
