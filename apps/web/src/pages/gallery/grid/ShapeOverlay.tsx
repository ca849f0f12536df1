import { memo } from 'react';
import type { ImageData } from '@loupe/contracts';
import { svgPoints } from './shapes';

/** Stroke of a label whose colour is not known (yet): the label list loads after the first page. */
export const UNKNOWN_LABEL_COLOR = '#8c8c8c';

interface Props {
  image: Pick<ImageData, 'id' | 'width' | 'height' | 'shapes'>;
  colors: ReadonlyMap<number, string>;
  /** Stroke width in screen pixels (the SVG scales with the picture, the stroke does not). */
  stroke?: number;
  testId?: string;
}

/**
 * An image's labels over its picture: an SVG in image coordinates laid over an `object-fit: contain` image of
 * the same box, so `xMidYMid meet` scales and centres both alike. Each shape in its label's colour.
 */
export const ShapeOverlay = memo(function ShapeOverlay({ image, colors, stroke = 1.5, testId }: Props) {
  const shapes = image.shapes;
  if (!shapes?.length || image.width <= 0 || image.height <= 0) return null;
  return (
    <svg
      className="loupe-image-shapes"
      viewBox={`0 0 ${image.width} ${image.height}`}
      preserveAspectRatio="xMidYMid meet"
      aria-hidden="true"
      data-testid={testId ?? `image-shapes-${image.id}`}
      data-count={shapes.length}
    >
      {shapes.map((s, i) => {
        const color = colors.get(s.labelId) ?? UNKNOWN_LABEL_COLOR;
        return (
          <polygon
            key={i}
            points={svgPoints(s.geometry)}
            fill={color}
            fillOpacity={0.12}
            stroke={color}
            strokeWidth={stroke}
            vectorEffect="non-scaling-stroke"
            data-kind={s.geometry.kind}
            data-label={s.labelId}
          />
        );
      })}
    </svg>
  );
});
