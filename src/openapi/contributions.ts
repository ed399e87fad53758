/** OpenAPI operations of the contributions feature; document.ts lists them with the rest. */
import type { TSchema } from '@sinclair/typebox';
import type { OperationSpec } from './spec.ts';

export const CONTRIBUTIONS_OPERATIONS: OperationSpec[] = [];
export const CONTRIBUTIONS_COMPONENTS: Record<string, TSchema> = {};
export const CONTRIBUTIONS_TAGS: { name: string; description: string }[] = [];
