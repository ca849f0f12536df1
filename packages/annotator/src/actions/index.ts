import type { Action } from '../types.js';
import { finishDrawing, removeLastPoint } from './drawingActions.js';
import { redo, undo } from './historyActions.js';
import { labelActions } from './labelActions.js';
import { nextImage, previousImage } from './navigationActions.js';
import { cancel, copy, deleteSelection, paste, selectAll } from './selectionActions.js';
import { toolActions } from './toolActions.js';
import { fit, toggleShapesHidden, zoomIn, zoomOut } from './viewActions.js';

/** Every command, in key-matching order (see ActionManager). */
export const allActions: readonly Action[] = [
  undo,
  redo,
  copy,
  paste,
  selectAll,
  toggleShapesHidden,
  cancel,
  finishDrawing,
  removeLastPoint,
  deleteSelection,
  ...labelActions,
  ...toolActions,
  fit,
  zoomIn,
  zoomOut,
  previousImage,
  nextImage,
];

export { ActionManager } from './manager.js';
export { ZOOM_STEP } from './viewActions.js';
