import type { ReactNode } from 'react';
import type { ModelType } from '@loupe/contracts';

/**
 * A small drawn example per model type for /creatModel2: what an image of that type looks like once labeled.
 * Plain SVG (no downloads), 160×100, the labels in the class colours the labeler uses.
 */
const BOARD = '#2f4f3a';
const PART = '#c9c2a8';
const RED = '#f5222d';
const BLUE = '#1677ff';
const GREEN = '#52c41a';

function Frame({ children, label }: { children: ReactNode; label: string }) {
  return (
    <svg viewBox="0 0 160 100" width="100%" role="img" aria-label={label} className="loupe-type-example-svg">
      <rect width="160" height="100" rx="6" fill={BOARD} />
      {children}
    </svg>
  );
}

const EXAMPLES: Record<ModelType, (label: string) => ReactNode> = {
  DETECTION: (label) => (
    <Frame label={label}>
      <rect x="22" y="24" width="36" height="26" fill={PART} />
      <rect x="96" y="52" width="40" height="28" fill={PART} />
      <circle cx="112" cy="64" r="5" fill="#6b5b3e" />
      <rect x="18" y="20" width="44" height="34" fill="none" stroke={BLUE} strokeWidth="2.5" />
      <rect x="104" y="56" width="16" height="16" fill="none" stroke={RED} strokeWidth="2.5" />
    </Frame>
  ),
  SEGMENTATION: (label) => (
    <Frame label={label}>
      <path d="M30 70 Q40 20 80 30 T130 60 Q110 85 70 80 Z" fill={PART} />
      <path d="M30 70 Q40 20 80 30 T130 60 Q110 85 70 80 Z" fill={GREEN} fillOpacity="0.45" stroke={GREEN} strokeWidth="2" />
    </Frame>
  ),
  classification: (label) => (
    <Frame label={label}>
      <rect x="14" y="18" width="58" height="58" rx="4" fill={PART} />
      <rect x="88" y="18" width="58" height="58" rx="4" fill={PART} />
      <path d="M100 30 L128 62" stroke="#6b5b3e" strokeWidth="3" />
      <rect x="26" y="80" width="34" height="14" rx="3" fill={GREEN} />
      <text x="43" y="91" fontSize="10" textAnchor="middle" fill="#fff" fontFamily="sans-serif">OK</text>
      <rect x="100" y="80" width="34" height="14" rx="3" fill={RED} />
      <text x="117" y="91" fontSize="10" textAnchor="middle" fill="#fff" fontFamily="sans-serif">NG</text>
    </Frame>
  ),
  OCR: (label) => (
    <Frame label={label}>
      <rect x="16" y="30" width="128" height="40" rx="3" fill={PART} />
      <text x="80" y="57" fontSize="18" textAnchor="middle" fill="#222" fontFamily="monospace">LOT 2417</text>
      <rect x="22" y="38" width="116" height="26" fill="none" stroke={BLUE} strokeWidth="2" />
    </Frame>
  ),
  MEASURE: (label) => (
    <Frame label={label}>
      <rect x="40" y="34" width="80" height="34" rx="3" fill={PART} />
      <path d="M40 80 H120 M40 76 V84 M120 76 V84" stroke={BLUE} strokeWidth="2" />
      <text x="80" y="95" fontSize="9" textAnchor="middle" fill="#fff" fontFamily="sans-serif">12.40 mm</text>
      <path d="M130 34 V68 M126 34 H134 M126 68 H134" stroke={BLUE} strokeWidth="2" />
    </Frame>
  ),
  FPG: (label) => (
    <Frame label={label}>
      {[10, 60, 110].map((x) => (
        <g key={x}>
          <rect x={x} y="26" width="40" height="48" rx="3" fill={PART} />
          <circle cx={x + 28} cy="40" r="4" fill={RED} />
        </g>
      ))}
    </Frame>
  ),
  RPG: (label) => (
    <Frame label={label}>
      {[
        [10, 14, 18],
        [60, 30, 60],
        [110, 10, 40],
      ].map(([x, dx, dy]) => (
        <g key={x}>
          <rect x={x} y="26" width="40" height="48" rx="3" fill={PART} />
          <circle cx={x! + dx! + 6} cy={26 + dy! - 6} r="4" fill={RED} />
        </g>
      ))}
    </Frame>
  ),
};

export function ExampleImage({ type, label }: { type: ModelType; label: string }) {
  return <div data-testid={`model-example-${type}`}>{EXAMPLES[type](label)}</div>;
}
