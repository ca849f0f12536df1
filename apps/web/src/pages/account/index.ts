import type { ComponentType } from 'react';

/** Account screens inside the main layout, keyed by route path. */
export const accountPages: Record<string, ComponentType> = {};
