import type { JobHandler } from './handlers.js';

/** Runs an agent job (issue 35). Being built. */
export const agentHandler: JobHandler = {
  async run() {
    throw new Error('the agent is being built');
  },
  async fail() {},
};
