/**
 * Checks a response against the schema the OpenAPI document declares for its path, method,
 * status and media type. Every JSON answer a test receives goes through here, so the document
 * and the behavior cannot drift apart unnoticed.
 */
import type { LightMyRequestResponse } from 'fastify';
import { createAjv, describeErrors } from '../../src/domain/validation.ts';

const ajv = createAjv();
// Each document gets its own key, so several apps (and documents) can be checked in one file.
const registered = new WeakMap<object, string>();
let documents = 0;

type Operation = { responses: Record<string, { content?: Record<string, { schema?: unknown }> }> };

/** Find the documented path template that matches a concrete path. */
export function matchTemplate(paths: string[], concrete: string): string | undefined {
  const exact = paths.find((p) => p === concrete);
  if (exact) return exact;
  return paths.find((template) => {
    const pattern = new RegExp(`^${template.replace(/[.+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);
    return pattern.test(concrete);
  });
}

export function assertMatchesOpenApi(
  doc: Record<string, unknown>,
  method: string,
  url: string,
  res: LightMyRequestResponse,
): void {
  const paths = doc.paths as Record<string, Record<string, Operation>>;
  const concrete = url.split('?')[0] ?? url;
  const template = matchTemplate(Object.keys(paths), concrete);
  if (!template) return; // an undocumented path (HTML page, 404 probe): nothing to compare with
  const op = paths[template]?.[method.toLowerCase() === 'head' ? 'get' : method.toLowerCase()];
  if (!op) return;
  const status = String(res.statusCode);
  const response = op.responses[status];
  if (!response)
    throw new Error(`${method} ${template} answered ${status}, which the OpenAPI document does not declare`);
  const contentType =
    String(res.headers['content-type'] ?? '')
      .split(';')[0]
      ?.trim() ?? '';
  if (!response.content || res.body.length === 0 || method.toUpperCase() === 'HEAD') return;
  const media =
    response.content[contentType] ?? response.content[`${contentType.split('/')[0]}/*`] ?? response.content['*/*'];
  if (!media) {
    throw new Error(
      `${method} ${template} ${status} answered ${contentType}; the document declares ${Object.keys(response.content).join(', ')}`,
    );
  }
  if (!media.schema || !contentType.includes('json')) return;
  let key = registered.get(doc);
  if (!key) {
    key = `openapi-${++documents}.json`;
    ajv.addSchema(doc, key);
    registered.set(doc, key);
  }
  const pointer = `${key}#/paths/${template.replace(/~/g, '~0').replace(/\//g, '~1')}/${method.toLowerCase() === 'head' ? 'get' : method.toLowerCase()}/responses/${status}/content/${contentType.replace(/\//g, '~1')}/schema`;
  const validate = ajv.getSchema(pointer) ?? ajv.compile({ $ref: pointer });
  const body: unknown = JSON.parse(res.body);
  if (!validate(body)) {
    const errors = describeErrors(validate.errors ?? [], body).map((e) => `${e.pointer} ${e.detail}`);
    throw new Error(`${method} ${url} ${status} does not match its OpenAPI schema:\n${errors.slice(0, 20).join('\n')}`);
  }
}
