export { AnnotatorCanvas, type AnnotatorCanvasProps } from './AnnotatorCanvas';
