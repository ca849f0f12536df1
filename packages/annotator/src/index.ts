export * from './types.js';
export { Editor, type EditorListener } from './editor.js';
export type { EditorOptions } from './editorState.js';
export { History, HistoryStore, HISTORY_LIMIT, type Snapshot } from './history.js';
export { ActionManager, allActions, ZOOM_STEP } from './actions/index.js';
export { toShapes, toAnnotations } from './shapes.js';
export { selectionHandles, cursorFor } from './view.js';
export * from './geometry/index.js';
