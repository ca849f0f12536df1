import type { ReactNode } from 'react';
import {
  AimOutlined,
  AppstoreOutlined,
  BlockOutlined,
  ColumnWidthOutlined,
  FontSizeOutlined,
  PictureOutlined,
  ShakeOutlined,
} from '@ant-design/icons';
import { MODEL_TYPE_NAMES, type ModelType } from '@loupe/contracts';

/** The create dialog's cards, in the order SPEC §1 lists the types; text lives under `models:types.<type>`. */
export const TYPE_ICONS: Record<ModelType, ReactNode> = {
  OCR: <FontSizeOutlined />,
  DETECTION: <AimOutlined />,
  SEGMENTATION: <BlockOutlined />,
  classification: <AppstoreOutlined />,
  MEASURE: <ColumnWidthOutlined />,
  FPG: <PictureOutlined />,
  RPG: <ShakeOutlined />,
};

export const MODEL_TYPES: readonly ModelType[] = MODEL_TYPE_NAMES;
