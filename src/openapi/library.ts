/** OpenAPI operations of the library feature; document.ts lists them with the rest. */
import type { TSchema } from '@sinclair/typebox';
import type { OperationSpec } from './spec.ts';

export const LIBRARY_OPERATIONS: OperationSpec[] = [];
export const LIBRARY_COMPONENTS: Record<string, TSchema> = {};
export const LIBRARY_TAGS: { name: string; description: string }[] = [];
