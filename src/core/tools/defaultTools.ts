// The standard tool set lives apart from the Tool contract: every tool imports tool.ts, so a tool.ts that
// also imported every tool would tie them all into one import circle.
import { bashTool } from './bashTool';
import { editTool } from './editTool';
import { globTool } from './globTool';
import { grepTool } from './grepTool';
import { readTool } from './readTool';
import type { Tool } from './tool';
import { writeTool } from './writeTool';

/** The agent's standard tool set, in the order they are offered to the model. */
export function createDefaultTools(): Tool[] {
  return [readTool(), writeTool(), editTool(), globTool(), grepTool(), bashTool()];
}
