import { memo, useMemo } from 'react';
import type { TestImageData } from '@loupe/contracts';
import { withToken } from '@/pages/gallery/galleryApi';
import { fitContain, overlayShapes, type LabelLook, type ShapeRole } from './overlayGeometry';

interface Props {
  image: TestImageData;
  labels: ReadonlyMap<number, LabelLook>;
  /** The frame in its own units (aspect kept by CSS); tags and strokes are sized in these units. */
  boxW: number;
  boxH: number;
  fontSize: number;
  /** Full-size image (viewer) instead of the thumbnail. */
  full?: boolean;
  tagGroundTruth?: boolean;
}

/** Misses and false alarms stand out in one colour whatever the label's. */
export const ERROR_COLOR = '#ff4d4f';
const DASH = '6 4';

const strokeOf = (role: ShapeRole, color: string) => (role === 'fn' ? ERROR_COLOR : color);
const tagFill = (role: ShapeRole, color: string) => (role === 'fn' || role === 'fp' ? ERROR_COLOR : color);

/**
 * The image with its test result over it: predictions dashed in their label's colour with label and
 * confidence, ground truth solid, misses (FN) red and false positives tagged red. The SVG and the image fill
 * the same frame, and the image is drawn "contain" exactly as fitContain places the shapes.
 */
export const BoxOverlay = memo(function BoxOverlay({ image, labels, boxW, boxH, fontSize, full, tagGroundTruth }: Props) {
  const fit = useMemo(() => fitContain(image.width, image.height, boxW, boxH), [image.width, image.height, boxW, boxH]);
  const shapes = useMemo(() => overlayShapes(image, labels, fit, { fontSize, tagGroundTruth }), [image, labels, fit, fontSize, tagGroundTruth]);
  return (
    <div className="loupe-test-frame" style={{ aspectRatio: `${boxW} / ${boxH}` }}>
      <img src={withToken(full ? image.imageUrl : image.thumbUrl)} alt={image.name} loading={full ? undefined : 'lazy'} decoding="async" draggable={false} />
      <svg
        viewBox={`0 0 ${boxW} ${boxH}`}
        preserveAspectRatio="none"
        data-testid={`test-overlay-${image.imageId}`}
        data-shapes={shapes.length}
        data-dashed={shapes.filter((s) => s.dashed).length}
      >
        {shapes.map((s) => (
          <path
            key={s.key}
            d={s.d}
            fill="none"
            stroke={strokeOf(s.role, s.color)}
            strokeWidth={s.role === 'fn' ? 2 : 1.5}
            strokeDasharray={s.dashed ? DASH : undefined}
            strokeOpacity={s.role === 'gt' ? 0.8 : 1}
            vectorEffect="non-scaling-stroke"
            data-testid="test-shape"
            data-role={s.role}
            data-dashed={s.dashed}
            data-label-id={s.labelId}
            data-confidence={s.confidence}
          />
        ))}
        {shapes.map(
          (s) =>
            s.tag && (
              <g key={`${s.key}t`} data-testid="test-tag" data-role={s.role}>
                <rect x={s.tag.rect.x} y={s.tag.rect.y} width={s.tag.rect.w} height={s.tag.rect.h} fill={tagFill(s.role, s.color)} fillOpacity={0.85} />
                <text x={s.tag.rect.x + fontSize * 0.3} y={s.tag.rect.y + s.tag.rect.h / 2} fontSize={fontSize} dominantBaseline="central" fill="#fff">
                  {s.tag.text}
                </text>
              </g>
            ),
        )}
      </svg>
    </div>
  );
});
