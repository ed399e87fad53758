/** Operations for agents beyond the REST resources: the full LLM guide, the changelog and the MCP endpoint. */
import { Type } from '@sinclair/typebox';
import type { OperationSpec } from './spec.ts';

export const AGENT_OPERATIONS: OperationSpec[] = [
  {
    method: 'get',
    path: '/llms-full.txt',
    operationId: 'getLlmsFullTxt',
    tags: ['discovery'],
    cacheable: true,
    summary: 'Workflow, rules and contract in one text for language models (text/plain)',
    responses: {
      '200': {
        description:
          'The whole guide: workflow, rules, caching and back-off, keys, the versioning policy, the MCP tools and every operation.',
        contentType: 'text/plain',
      },
    },
  },
  {
    method: 'get',
    path: '/changelog.md',
    operationId: 'getChangelog',
    tags: ['discovery'],
    cacheable: true,
    summary: 'Changelog and deprecation policy (text/markdown)',
    description: 'The document that deprecation Link headers (rel="deprecation") point at.',
    responses: { '200': { description: 'CHANGELOG.md.', contentType: 'text/markdown' } },
  },
  {
    method: 'post',
    path: '/mcp',
    operationId: 'mcp',
    tags: ['discovery'],
    summary: 'Model Context Protocol, Streamable HTTP transport (stateless)',
    description:
      'JSON-RPC 2.0 messages of the Model Context Protocol; send Accept: application/json, text/event-stream. Tools call this API in process with your address, so validation, idempotency and rate limits are those of the HTTP operations. ' +
      'Errors of the protocol itself are JSON-RPC errors (not problem details), as MCP requires; a refused tool call is a tool result with isError and the problem detail. GET and DELETE answer 405 (no sessions).',
    requestBody: {
      description: 'A JSON-RPC request, notification or batch.',
      required: true,
      contentTypes: ['application/json'],
      schema: Type.Object({}, { additionalProperties: true }),
    },
    responses: {
      '200': {
        description: 'The JSON-RPC response.',
        contentType: 'application/json',
        schema: Type.Object({}, { additionalProperties: true }),
      },
      '202': { description: 'Accepted: the message was a notification or response.' },
      '400': {
        description: 'Not a valid JSON-RPC message (a JSON-RPC error).',
        contentType: 'application/json',
        schema: Type.Object({}, { additionalProperties: true }),
      },
      '406': {
        description: 'The Accept header does not allow application/json and text/event-stream (a JSON-RPC error).',
        contentType: 'application/json',
        schema: Type.Object({}, { additionalProperties: true }),
      },
    },
  },
];
