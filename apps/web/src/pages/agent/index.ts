import type { ComponentType } from 'react';

/** /agent (issue 35): the agent that analyses, tunes, trains, tests and retrains. Being built. */
export const agentPages: Record<string, ComponentType> = {};
