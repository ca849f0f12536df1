import type { ComponentType } from 'react';

/** /statistics (issue 35): dataset analysis and test analysis charts. Being built. */
export const statisticsPages: Record<string, ComponentType> = {};
