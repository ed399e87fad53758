/**
 * Reads the OpenAPI document for the API documentation page: operations grouped by tag, and a
 * short type description for any schema ("array of WorkSummary", "string or null, max 200").
 */
type Schema = Record<string, unknown>;

export interface OperationView {
  id: string;
  method: string;
  path: string;
  summary: string;
  description: string | null;
  parameters: Array<{ name: string; in: string; required: boolean; type: string; description: string }>;
  requestBody: Array<{ contentType: string; type: string }>;
  responses: Array<{ status: string; description: string; contentTypes: string[]; type: string | null }>;
  security: boolean;
}

export interface SchemaView {
  name: string;
  description: string;
  properties: Array<{ name: string; type: string; required: boolean; description: string }>;
}

const refName = (ref: string) => ref.split('/').pop() ?? ref;

/** A one-line description of a schema's type. */
export function typeOf(schema: unknown, depth = 0): string {
  if (!schema || typeof schema !== 'object') return 'any';
  const s = schema as Schema;
  if (typeof s.$ref === 'string') return refName(s.$ref);
  if (depth > 3) return 'object';
  if (Array.isArray(s.anyOf)) return (s.anyOf as unknown[]).map((x) => typeOf(x, depth + 1)).join(' or ');
  if (Array.isArray(s.oneOf)) return (s.oneOf as unknown[]).map((x) => typeOf(x, depth + 1)).join(' or ');
  if (Array.isArray(s.enum)) return `one of ${(s.enum as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
  if (s.const !== undefined) return JSON.stringify(s.const);
  const types = Array.isArray(s.type) ? (s.type as string[]) : typeof s.type === 'string' ? [s.type] : [];
  const main = types.filter((t) => t !== 'null');
  let text = main.length === 0 ? (s.properties ? 'object' : 'any') : main.join(' or ');
  if (main.includes('array')) text = `array of ${typeOf(s.items, depth + 1)}`;
  if (typeof s.title === 'string' && main.includes('object')) text = s.title;
  else if (main.includes('object') && s.properties && typeof s.properties === 'object' && 'data' in s.properties && 'apiVersion' in s.properties) {
    text = `envelope of ${typeOf((s.properties as Schema).data, depth + 1)}`;
  }
  const limits: string[] = [];
  if (typeof s.format === 'string') limits.push(s.format);
  if (typeof s.maxLength === 'number') limits.push(`max ${s.maxLength}`);
  if (typeof s.minimum === 'number' && typeof s.maximum === 'number') limits.push(`${s.minimum} to ${s.maximum}`);
  if (typeof s.minItems === 'number' && s.minItems > 0) limits.push(`at least ${s.minItems}`);
  if (types.includes('null')) text += ' or null';
  return limits.length > 0 ? `${text} (${limits.join(', ')})` : text;
}

export function operations(doc: Schema): Map<string, OperationView[]> {
  const byTag = new Map<string, OperationView[]>();
  const paths = (doc.paths ?? {}) as Record<string, Record<string, Schema>>;
  for (const [p, item] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const params = ((op.parameters ?? []) as Schema[]).map((x) => ({
        name: String(x.name),
        in: String(x.in),
        required: x.required === true,
        type: typeOf(x.schema),
        description: String(x.description ?? ''),
      }));
      const body = (op.requestBody as Schema | undefined)?.content as Record<string, Schema> | undefined;
      const responses = Object.entries((op.responses ?? {}) as Record<string, Schema>).map(([status, r]) => {
        const content = (r.content ?? {}) as Record<string, Schema>;
        const first = Object.values(content)[0];
        return { status, description: String(r.description ?? ''), contentTypes: Object.keys(content), type: first?.schema ? typeOf(first.schema) : null };
      });
      const view: OperationView = {
        id: String(op.operationId ?? `${method}-${p}`),
        method: method.toUpperCase(),
        path: p,
        summary: String(op.summary ?? ''),
        description: typeof op.description === 'string' ? op.description : null,
        parameters: params,
        requestBody: Object.entries(body ?? {}).map(([contentType, c]) => ({ contentType, type: typeOf(c.schema) })),
        responses,
        security: Array.isArray(op.security) && (op.security as unknown[]).length > 0,
      };
      const tag = ((op.tags as string[] | undefined) ?? ['other'])[0] ?? 'other';
      byTag.set(tag, [...(byTag.get(tag) ?? []), view]);
    }
  }
  return byTag;
}

export function schemas(doc: Schema): SchemaView[] {
  const all = ((doc.components as Schema | undefined)?.schemas ?? {}) as Record<string, Schema>;
  return Object.entries(all).map(([name, s]) => {
    const required = new Set((s.required as string[] | undefined) ?? []);
    return {
      name,
      description: String(s.description ?? ''),
      properties: Object.entries((s.properties ?? {}) as Record<string, Schema>).map(([prop, ps]) => ({
        name: prop,
        type: typeOf(ps),
        required: required.has(prop),
        description: String(ps.description ?? ''),
      })),
    };
  });
}
