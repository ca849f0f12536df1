import type { ComponentType } from 'react';
import RegisteredConfirm from './signup/RegisteredConfirm';

/** Public account screens keyed by route path (SPEC §2); the shell's route table mounts them in its public layout. */
export const authPages: Record<string, ComponentType> = {
  '/registered/comfirm': RegisteredConfirm,
};
