import type { Action, EditorLike, KeyInput } from '../types.js';

/**
 * Shortcuts, buttons and menus all run commands through here. Order matters: the first action whose key test
 * matches owns the key, so specific actions (Backspace while drawing) come before general ones.
 */
export class ActionManager {
  private readonly byName: ReadonlyMap<string, Action>;

  constructor(readonly actions: readonly Action[]) {
    this.byName = new Map(actions.map((a) => [a.name, a]));
  }

  get(name: string): Action | undefined {
    return this.byName.get(name);
  }

  /** True when an action took the key (the host then prevents the browser's default). */
  handleKey(editor: EditorLike, key: KeyInput): boolean {
    const action = this.actions.find((a) => a.keyTest?.(key, editor.state));
    return action ? action.perform(editor, key) : false;
  }

  run(editor: EditorLike, name: string): boolean {
    return this.byName.get(name)?.perform(editor) ?? false;
  }
}
