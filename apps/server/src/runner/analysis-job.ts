import type { JobHandler } from './handlers.js';

/** Runs a dataset analysis job (issue 35). Being built. */
export const analysisHandler: JobHandler = {
  async run() {
    throw new Error('dataset analysis is being built');
  },
  async fail() {},
};
