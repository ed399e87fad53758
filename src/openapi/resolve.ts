/** OpenAPI operations of the resolve feature; document.ts lists them with the rest. */
import type { TSchema } from '@sinclair/typebox';
import type { OperationSpec } from './spec.ts';

export const RESOLVE_OPERATIONS: OperationSpec[] = [];
export const RESOLVE_COMPONENTS: Record<string, TSchema> = {};
export const RESOLVE_TAGS: { name: string; description: string }[] = [];
