import { useEffect, useMemo, useState } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { Empty } from 'antd';
import type { ImageData } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { useImagePages } from '../galleryApi';
import { PAGE_SIZE, pagesFor, type GalleryFilters } from '../query';
import { ImageCard, type ClassTag } from './ImageCard';
import { CARD_GAP, ROW_HEIGHT, columnsFor, itemRange, rowCount } from './layout';

interface Props {
  modelId: string;
  filters: GalleryFilters;
  total: number;
  /** Label names and colours by id: the class tags of classification images, the shapes' strokes of the others. */
  labelNames: ReadonlyMap<number, string>;
  labelColors: ReadonlyMap<number, string>;
  selected: ReadonlySet<number>;
  onSelect: (id: number, selected: boolean) => void;
  onStar: (image: ImageData) => void;
  onPreview: (image: ImageData) => void;
}

/** A classification image's class tags: its class, or a multi-label image's classes. */
export function classTagsOf(
  image: Pick<ImageData, 'classLabelId' | 'classLabelIds'> | undefined,
  names: ReadonlyMap<number, string>,
  colors: ReadonlyMap<number, string>,
): ClassTag[] | undefined {
  const ids = image?.classLabelId ? [image.classLabelId] : image?.classLabelIds;
  if (!ids?.length) return undefined;
  return ids.map((id) => ({ id, name: names.get(id) ?? `#${id}`, color: colors.get(id) ?? '#8c8c8c' }));
}

/** Measure the scroll box's width so the grid knows how many cards fit a row (the box mounts late: empty first). */
function useWidth(el: HTMLDivElement | null) {
  const [width, setWidth] = useState(0);
  useEffect(() => {
    if (!el) return;
    setWidth(el.clientWidth);
    const observer = new ResizeObserver(() => setWidth(el.clientWidth));
    observer.observe(el);
    return () => observer.disconnect();
  }, [el]);
  return width;
}

/**
 * The virtualised thumbnail grid: rows of cards, only the rows in view (plus overscan) exist in the DOM and
 * only their pages are fetched, so 100,000 images scroll like 100.
 */
export function ImageGrid({ modelId, filters, total, labelNames, labelColors, selected, onSelect, onStar, onPreview }: Props) {
  const { t } = useTranslation('gallery');
  const [scrollEl, setScrollEl] = useState<HTMLDivElement | null>(null);
  const width = useWidth(scrollEl);
  const columns = columnsFor(width);
  const rows = rowCount(total, columns);
  const virtualizer = useVirtualizer({
    count: rows,
    getScrollElement: () => scrollEl,
    estimateSize: () => ROW_HEIGHT + CARD_GAP,
    overscan: 3,
    // jsdom and the first paint have no size yet: start with a window's worth of rows.
    initialRect: { width: 1024, height: 800 },
  });
  const virtualRows = virtualizer.getVirtualItems();
  const firstRow = virtualRows[0]?.index ?? 0;
  const lastRow = virtualRows[virtualRows.length - 1]?.index ?? -1;
  const [first, last] = itemRange(firstRow, lastRow, columns, total);
  const pages = useMemo(() => pagesFor(first, last), [first, last]);
  const results = useImagePages(modelId, filters, pages);

  const byIndex = useMemo(() => {
    const map = new Map<number, ImageData>();
    results.forEach((r, i) => {
      const offset = (pages[i]! - 1) * PAGE_SIZE;
      r.data?.items.forEach((image, k) => map.set(offset + k, image));
    });
    return map;
  }, [results, pages]);

  if (total === 0) return <Empty description={t('grid.empty')} data-testid="image-grid-empty" />;

  return (
    <div ref={setScrollEl} className="loupe-image-grid" data-testid="image-grid" data-total={total}>
      <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
        {virtualRows.map((row) => (
          <div
            key={row.key}
            className="loupe-image-row"
            style={{
              transform: `translateY(${row.start}px)`,
              gridTemplateColumns: `repeat(${columns}, minmax(0, 1fr))`,
              height: ROW_HEIGHT,
            }}
          >
            {Array.from({ length: Math.min(columns, total - row.index * columns) }, (_, c) => {
              const index = row.index * columns + c;
              const image = byIndex.get(index);
              return (
                <ImageCard
                  key={image?.id ?? `i${index}`}
                  image={image}
                  classes={classTagsOf(image, labelNames, labelColors)}
                  colors={labelColors}
                  selected={image ? selected.has(image.id) : false}
                  onSelect={onSelect}
                  onStar={onStar}
                  onPreview={onPreview}
                />
              );
            })}
          </div>
        ))}
      </div>
    </div>
  );
}
