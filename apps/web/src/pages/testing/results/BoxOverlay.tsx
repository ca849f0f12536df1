import { memo, useMemo } from 'react';
import type { TestImageData } from '@loupe/contracts';
import { fitContain, overlayShapes, type LabelLook, type OverlayShape, type OverlayStyle } from './overlayGeometry';

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
  /** How the task's results draw (boxes, masks, text); boxes by default. */
  style?: OverlayStyle;
}

/** Misses and false alarms stand out in one colour whatever the label's. */
export const ERROR_COLOR = '#ff4d4f';
const DASH = '6 4';

/** How much of the image shows through a predicted mask. */
export const MASK_OPACITY = 0.4;

const strokeOf = (s: OverlayShape) => (s.role === 'fn' ? ERROR_COLOR : s.color);
const tagFill = (s: OverlayShape) => (s.role === 'fn' || s.role === 'fp' || s.textWrong ? ERROR_COLOR : s.color);

/**
 * The image with its test result over it: predictions dashed in their label's colour with label and
 * confidence (segmentation: filled semi-transparent masks; OCR: the recognised text, the true text under the
 * ground truth, wrong texts red), ground truth solid, misses (FN) red and false positives tagged red. The SVG and
 * the image fill the same frame, and the image is drawn "contain" exactly as fitContain places the shapes.
 */
export const BoxOverlay = memo(function BoxOverlay({ image, labels, boxW, boxH, fontSize, full, tagGroundTruth, style }: Props) {
  const fit = useMemo(() => fitContain(image.width, image.height, boxW, boxH), [image.width, image.height, boxW, boxH]);
  const shapes = useMemo(() => overlayShapes(image, labels, fit, { fontSize, tagGroundTruth, style }), [image, labels, fit, fontSize, tagGroundTruth, style]);
  return (
    <div className="loupe-test-frame" style={{ aspectRatio: `${boxW} / ${boxH}` }}>
      <img src={full ? image.imageUrl : image.thumbUrl} alt={image.name} loading={full ? undefined : 'lazy'} decoding="async" draggable={false} />
      <svg
        viewBox={`0 0 ${boxW} ${boxH}`}
        preserveAspectRatio="none"
        data-testid={`test-overlay-${image.imageId}`}
        data-shapes={shapes.length}
        data-dashed={shapes.filter((s) => s.dashed).length}
        data-filled={shapes.filter((s) => s.filled).length}
        data-text-wrong={shapes.filter((s) => s.textWrong).length}
      >
        {shapes.map((s) => (
          <path
            key={s.key}
            d={s.d}
            fill={s.filled ? s.color : 'none'}
            fillOpacity={s.filled ? MASK_OPACITY : undefined}
            fillRule="evenodd"
            stroke={strokeOf(s)}
            strokeWidth={s.role === 'fn' ? 2 : 1.5}
            strokeDasharray={s.dashed ? DASH : undefined}
            strokeOpacity={s.role === 'gt' ? 0.8 : 1}
            vectorEffect="non-scaling-stroke"
            data-testid="test-shape"
            data-role={s.role}
            data-dashed={s.dashed}
            data-label-id={s.labelId}
            data-confidence={s.confidence}
            data-filled={s.filled}
            data-text={s.text}
            data-text-wrong={s.textWrong}
          />
        ))}
        {shapes.map(
          (s) =>
            s.tag && (
              <g key={`${s.key}t`} data-testid="test-tag" data-role={s.role} data-text-wrong={s.textWrong}>
                <rect x={s.tag.rect.x} y={s.tag.rect.y} width={s.tag.rect.w} height={s.tag.rect.h} fill={tagFill(s)} fillOpacity={0.85} />
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
