import { TOOLS_BY_MODE, type Action, type ToolId } from '../types.js';
import { isLetter, noMods } from './keys.js';

const TOOL_KEYS: Record<ToolId, string> = { select: 'v', box: 'b', rbox: 'r', polygon: 'p', pan: 'h' };

/** One action per tool; a mode without the tool does not claim its key. */
export const toolActions: Action[] = (Object.keys(TOOL_KEYS) as ToolId[]).map((tool) => ({
  name: `tool.${tool}`,
  labelKey: `tools.${tool}`,
  shortcut: TOOL_KEYS[tool].toUpperCase(),
  keyTest: (k, s) => noMods(k) && !k.shift && isLetter(k, TOOL_KEYS[tool]) && TOOLS_BY_MODE[s.mode].includes(tool),
  perform: (editor) => editor.setTool(tool),
}));
