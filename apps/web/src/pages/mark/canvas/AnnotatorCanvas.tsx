import { memo, useEffect, useRef, useState, type CSSProperties, type JSX } from 'react';
import type { Editor } from '@loupe/annotator';
import type { Geometry } from '@loupe/contracts';
import { DecodedImages } from './decodedImages';
import { attachInput } from './input';
import { CanvasRenderer } from './renderer';
import { useImageSource } from './useImageSource';

export interface AnnotatorCanvasProps {
  editor: Editor;
  /** The image route as listed; the HttpOnly files cookie signs it in (no token in the URL). */
  imageUrl: string;
  /** Decoded images shared with the page, which decodes the next ones in advance; the canvas keeps its own without. */
  images?: DecodedImages;
  /** Percent, 100 = unchanged. */
  brightness: number;
  /** Percent, 100 = unchanged. */
  contrast: number;
  /** Drawn dashed, with the confidence. */
  testResults?: readonly { id: number; labelId: number; geometry: Geometry; confidence: number }[];
  showTestResults?: boolean;
  onImageLoaded?(size: { width: number; height: number }): void;
  className?: string;
  /** Forward keys to the editor while the canvas is focused or hovered (default true). */
  keyboard?: boolean;
}

const rootStyle: CSSProperties = { position: 'relative', width: '100%', height: '100%', overflow: 'hidden', touchAction: 'none', outline: 'none', userSelect: 'none' };
const layerStyle: CSSProperties = { position: 'absolute', inset: 0, width: '100%', height: '100%', pointerEvents: 'none' };

/**
 * The labeling canvas: fills its parent, forwards input to the editor and draws the editor's state. All
 * geometry lives in @loupe/annotator; drawing lives in CanvasRenderer, outside React, so a pointer move never
 * re-renders a component. Brightness and contrast change the image only, never the shape colours.
 */
export const AnnotatorCanvas = memo(function AnnotatorCanvas(props: AnnotatorCanvasProps): JSX.Element {
  const { editor, imageUrl, images: shared, brightness, contrast, testResults, showTestResults = false, onImageLoaded, className, keyboard = true } = props;
  const rootRef = useRef<HTMLDivElement>(null);
  const sceneRef = useRef<HTMLCanvasElement>(null);
  const overlayRef = useRef<HTMLCanvasElement>(null);
  const [renderer] = useState(() => new CanvasRenderer());
  // Empty until used: a canvas given the page's cache never loads into its own.
  const [own] = useState(() => new DecodedImages());
  const images = shared ?? own;
  useEffect(() => () => own.dispose(), [own]);
  const fitted = useRef(false);

  useEffect(() => {
    const root = rootRef.current!;
    renderer.mount(root, { scene: sceneRef.current!, overlay: overlayRef.current! });
    return () => renderer.unmount();
  }, [renderer]);

  useEffect(() => {
    renderer.setEditor(editor);
    return () => renderer.setEditor(null);
  }, [renderer, editor]);

  useEffect(() => {
    const root = rootRef.current!;
    const observer = new ResizeObserver(([entry]) => {
      if (!entry) return;
      const { width, height } = entry.contentRect;
      renderer.setSize(width, height, window.devicePixelRatio || 1);
      editor.setViewportSize(width, height);
    });
    observer.observe(root);
    return () => observer.disconnect();
  }, [renderer, editor]);

  useEffect(() => attachInput(rootRef.current!, editor, { keyboard }), [editor, keyboard]);

  useEffect(() => {
    renderer.setLook({ brightness, contrast });
  }, [renderer, brightness, contrast]);

  useEffect(() => {
    renderer.setTestResults(showTestResults ? (testResults ?? null) : null);
  }, [renderer, testResults, showTestResults]);

  useImageSource(renderer, images, imageUrl, (size) => {
    // Later images are fitted by editor.load; the first may arrive before the canvas had a size to fit into.
    if (!fitted.current) editor.fit();
    fitted.current = true;
    onImageLoaded?.(size);
  });

  useEffect(() => () => renderer.dispose(), [renderer]);

  return (
    <div ref={rootRef} className={className} style={rootStyle} tabIndex={0} data-testid="annotator-canvas">
      <canvas ref={sceneRef} style={layerStyle} />
      <canvas ref={overlayRef} style={layerStyle} />
    </div>
  );
});
