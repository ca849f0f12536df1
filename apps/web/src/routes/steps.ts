import { ModelTypes, TYPED_STEPS, type ModelType } from '@loupe/contracts';

/** Child segments a typed step accepts in the route table (SPEC §2). */
export const STEP_SEGMENTS = ['ocr', 'segmentation', 'detection', 'measure'] as const;

export function isTypedStep(step: string): boolean {
  return (TYPED_STEPS as readonly string[]).includes(step);
}

/** The lowercased model type used as a step's child segment, when the route table has one. */
export function typeSegment(type: ModelType | string | undefined): string | undefined {
  if (!type) return undefined;
  const segment = (ModelTypes as Record<string, { segment: string }>)[type]?.segment ?? type.toLowerCase();
  return (STEP_SEGMENTS as readonly string[]).includes(segment) ? segment : undefined;
}

/** Path of a project step: the step name plus the lowercased model type for typed steps (SPEC §2). */
export function stepPath(step: string, type?: ModelType | string): string {
  const segment = isTypedStep(step) ? typeSegment(type) : undefined;
  return segment ? `/${step}/${segment}` : `/${step}`;
}
