export * from './errors.js';
export * from './limits.js';
export * from './menus.js';
export * from './envelope.js';
export * from './auth.js';
export * from './models.js';
export * from './datasets.js';
export * from './labeling.js';
