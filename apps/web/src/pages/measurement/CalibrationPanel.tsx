import { useEffect, useRef, useState } from 'react';
import { Alert, Button, Descriptions, InputNumber, Popconfirm, Segmented, Select, Space, Typography } from 'antd';
import { isApiError } from '@/api/errors';
import { useTranslation } from '@/i18n';
import { lineLength, scaleOfLine, toImagePoint, type ImagePoint } from './line';
import { useCalibration, useCalibrationMutations, useModelImages } from './measurementApi';

type Mode = 'line' | 'typed';

/**
 * Calibration: pick an image, click the two ends of something of known length, type that length in mm (or type
 * the scale itself); results then show mm and mm² beside pixels.
 */
export function CalibrationPanel({ modelId }: { modelId: string }) {
  const { t } = useTranslation('measurement');
  const current = useCalibration(modelId);
  const images = useModelImages(modelId, false);
  const { save, remove } = useCalibrationMutations(modelId);
  const [mode, setMode] = useState<Mode>('line');
  const [imageId, setImageId] = useState<number>();
  const [points, setPoints] = useState<ImagePoint[]>([]);
  const [lengthMm, setLengthMm] = useState<number | null>(null);
  const [typed, setTyped] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const svg = useRef<SVGSVGElement>(null);

  const items = images.data?.items ?? [];
  const image = items.find((i) => i.id === imageId) ?? items[0];
  // Start on the image the saved line was drawn on.
  useEffect(() => {
    const saved = current.data?.line;
    if (saved && imageId === undefined) {
      setImageId(saved.imageId);
      setPoints([{ x: saved.x1, y: saved.y1 }, { x: saved.x2, y: saved.y2 }]);
      setLengthMm(saved.lengthMm);
    }
  }, [current.data, imageId]);

  const [a, b] = [points[0] ?? null, points[1] ?? null];
  const scale = mode === 'line' ? scaleOfLine(a, b, lengthMm) : typed && typed > 0 ? typed : null;

  const click = (e: React.MouseEvent<SVGSVGElement>) => {
    if (!image || !svg.current) return;
    const p = toImagePoint(e, svg.current.getBoundingClientRect(), image);
    // A third click starts a new line.
    setPoints((prev) => (prev.length >= 2 ? [p] : [...prev, p]));
  };

  const submit = async () => {
    setError(null);
    try {
      if (mode === 'typed') await save.mutateAsync({ mmPerPx: typed ?? 0 });
      else if (image && a && b) await save.mutateAsync({ line: { imageId: image.id, x1: a.x, y1: a.y, x2: b.x, y2: b.y, lengthMm: lengthMm ?? 0 } });
    } catch (e) {
      setError(isApiError(e) ? e.message : t('calibration.failed'));
    }
  };

  const saved = current.data;
  return (
    <Space direction="vertical" style={{ width: '100%' }} data-testid="calibration-panel">
      <Descriptions size="small" column={1} bordered>
        <Descriptions.Item label={t('calibration.current')}>
          <span data-testid="calibration-current" data-value={saved?.mmPerPx ?? ''}>
            {saved?.mmPerPx ? t('calibration.scale', { value: saved.mmPerPx.toPrecision(6) }) : t('calibration.none')}
          </span>
        </Descriptions.Item>
      </Descriptions>
      <Segmented<Mode>
        value={mode}
        onChange={setMode}
        options={[
          { value: 'line', label: <span data-testid="calibration-mode-line">{t('calibration.modeLine')}</span> },
          { value: 'typed', label: <span data-testid="calibration-mode-typed">{t('calibration.modeTyped')}</span> },
        ]}
      />
      {mode === 'line' ? (
        <>
          <Select
            style={{ width: '100%' }}
            placeholder={t('calibration.pickImage')}
            loading={images.isPending}
            value={image?.id}
            onChange={(id: number) => {
              setImageId(id);
              setPoints([]);
            }}
            options={items.map((i) => ({ value: i.id, label: i.name }))}
            data-testid="calibration-image"
          />
          <Typography.Text type="secondary">{t('calibration.howTo')}</Typography.Text>
          {image && (
            <svg
              ref={svg}
              viewBox={`0 0 ${image.width} ${image.height}`}
              // Drawn at the image's own aspect ratio, so a click maps to image pixels the same way along both axes.
              style={{ width: '100%', maxWidth: 480, aspectRatio: `${image.width} / ${image.height}`, background: '#111', cursor: 'crosshair', display: 'block' }}
              onClick={click}
              data-testid="calibration-canvas"
              data-points={points.length}
            >
              <image href={image.originalUrl} x={0} y={0} width={image.width} height={image.height} preserveAspectRatio="none" />
              {a && b && <line x1={a.x} y1={a.y} x2={b.x} y2={b.y} stroke="#ff4d4f" strokeWidth={Math.max(1, image.width / 200)} vectorEffect="non-scaling-stroke" />}
              {points.map((p, i) => (
                <circle key={i} cx={p.x} cy={p.y} r={Math.max(1.5, image.width / 100)} fill="#ff4d4f" />
              ))}
            </svg>
          )}
          <Space wrap>
            <span data-testid="calibration-length-px" data-value={a && b ? lineLength(a, b) : ''}>
              {a && b ? t('calibration.lengthPx', { value: lineLength(a, b).toFixed(1) }) : t('calibration.noLine')}
            </span>
            <InputNumber<number>
              min={0}
              addonAfter="mm"
              placeholder={t('calibration.lengthMm')}
              value={lengthMm}
              onChange={setLengthMm}
              data-testid="calibration-length-mm"
            />
          </Space>
        </>
      ) : (
        <InputNumber<number> min={0} step={0.001} addonAfter={t('calibration.mmPerPx')} value={typed} onChange={setTyped} style={{ width: 240 }} data-testid="calibration-typed" />
      )}
      <span data-testid="calibration-preview" data-value={scale ?? ''}>
        {scale ? t('calibration.scale', { value: scale.toPrecision(6) }) : ''}
      </span>
      {error && <Alert type="error" showIcon message={error} data-testid="calibration-error" />}
      <Space>
        <Button type="primary" onClick={() => void submit()} loading={save.isPending} disabled={mode === 'line' && !(a && b)} data-testid="calibration-save">
          {t('calibration.save')}
        </Button>
        <Popconfirm title={t('calibration.removeConfirm')} onConfirm={() => remove.mutate()} okButtonProps={{ 'data-testid': 'calibration-remove-confirm' } as Record<string, string>}>
          <Button danger disabled={!saved?.mmPerPx} loading={remove.isPending} data-testid="calibration-remove">
            {t('calibration.remove')}
          </Button>
        </Popconfirm>
      </Space>
    </Space>
  );
}
