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
  else if (
    main.includes('object') &&
    s.properties &&
    typeof s.properties === 'object' &&
    'data' in s.properties &&
    'apiVersion' in s.properties
  ) {
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
        return {
          status,
          description: String(r.description ?? ''),
          contentTypes: Object.keys(content),
          type: first?.schema ? typeOf(first.schema) : null,
        };
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

// ---------- examples and words for the API page ----------

/** Text with Markdown `code` spans split out, so the page shows code as code, not backticks. */
export function inlineCode(text: string): Array<{ code: boolean; text: string }> {
  const parts = text.split('`');
  // An odd number of backticks leaves the last one literal.
  if (parts.length % 2 === 0) return [{ code: false, text }];
  return parts.map((t, i) => ({ code: i % 2 === 1, text: t })).filter((p) => p.text !== '');
}

/** Values the examples use for path parameters, by name; others get "{name}" left as it is. */
export interface ExampleValues {
  slug: string;
  profileSlug: string;
  file: string;
}

function resolveRef(doc: Schema, schema: Schema): Schema {
  let s = schema;
  for (let i = 0; i < 5 && typeof s.$ref === 'string'; i++) {
    const name = refName(s.$ref);
    s = (((doc.components as Schema | undefined)?.schemas ?? {}) as Record<string, Schema>)[name] ?? {};
  }
  return s;
}

/**
 * A small example value built from a schema: defaults and enums first, then placeholders by
 * type and format; objects show their required fields (all fields when none is required),
 * arrays one item. Bounded in depth, so any schema gives a short answer.
 */
export function exampleValue(doc: Schema, schema: unknown, depth = 0): unknown {
  if (!schema || typeof schema !== 'object') return null;
  const s = resolveRef(doc, schema as Schema);
  if (s.default !== undefined) return s.default;
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0];
  if (Array.isArray(s.enum)) return (s.enum as unknown[]).find((v) => v !== null) ?? null;
  const variants = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  if (Array.isArray(variants)) {
    const first = variants.find((v) => resolveRef(doc, v).type !== 'null') ?? variants[0];
    return exampleValue(doc, first, depth);
  }
  const types = Array.isArray(s.type)
    ? (s.type as string[])
    : typeof s.type === 'string'
      ? [s.type]
      : s.properties
        ? ['object']
        : [];
  const type = types.find((t) => t !== 'null');
  if (depth > 4) return type === 'array' ? [] : type === 'object' ? {} : null;
  switch (type) {
    case 'string': {
      const pattern = typeof s.pattern === 'string' ? s.pattern : '';
      if (s.format === 'date-time' || /Utc$|AtUtc/.test(String(s.title ?? ''))) return '2026-11-23T08:00:00Z';
      if (s.format === 'uri' || s.format === 'url') return 'https://example.org/page';
      if (/\{64\}/.test(pattern)) return '0'.repeat(64);
      if (/^\^\[0-9\]\{4\}/.test(pattern)) return '1888';
      if (pattern.includes('a-z0-9')) return 'satie-gymnopedie-1';
      return typeof s.description === 'string' && /e\.g\. "([^"]+)"/.test(s.description)
        ? /e\.g\. "([^"]+)"/.exec(s.description)![1]
        : 'text';
    }
    case 'integer':
    case 'number':
      return typeof s.minimum === 'number' ? s.minimum : 1;
    case 'boolean':
      return false;
    case 'array':
      return typeof s.minItems === 'number' && s.minItems === 0 && depth > 1
        ? []
        : [exampleValue(doc, s.items, depth + 1)];
    case 'object': {
      const props = (s.properties ?? {}) as Record<string, Schema>;
      const required = new Set((s.required as string[] | undefined) ?? []);
      const keys = Object.keys(props).filter((k) => required.size === 0 || required.has(k));
      return Object.fromEntries(keys.map((k) => [k, exampleValue(doc, props[k], depth + 1)]));
    }
    default:
      return null;
  }
}

/** Pretty JSON cut to `maxLines`, with a last line saying how much was left out. */
export function clippedJson(value: unknown, maxLines = 28): string {
  const lines = JSON.stringify(value, null, 2).split('\n');
  if (lines.length <= maxLines) return lines.join('\n');
  return [...lines.slice(0, maxLines), `… (${lines.length - maxLines} more lines; see the schema below)`].join('\n');
}

export interface OperationExample {
  /** A curl command for the operation, with example path values filled in. */
  request: string;
  /** The first success answer: status, type and (for JSON) an example body. */
  response: { status: string; contentType: string | null; body: string | null } | null;
}

export function operationExample(
  doc: Schema,
  baseUrl: string,
  op: OperationView,
  values: ExampleValues,
): OperationExample {
  const item = ((doc.paths ?? {}) as Record<string, Record<string, Schema>>)[op.path]?.[op.method.toLowerCase()] ?? {};
  const fill: Record<string, string> = {
    slug: op.path.includes('/profiles/') ? values.profileSlug : values.slug,
    file: values.file,
    trackingCode: op.path.includes('/correction-reports/') ? 'R-7KQM-T4XH-R2PZ-9WNB' : 'C-7KQM-T4XH-R2PZ-9WNB',
    code: op.path.includes('/correction-reports/') ? 'R-7KQM-T4XH-R2PZ-9WNB' : 'C-7KQM-T4XH-R2PZ-9WNB',
    sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  };
  const path = op.path.replace(/\{([^}]+)\}/g, (m, name: string) => fill[name] ?? m);
  const query = op.parameters.filter((p) => p.in === 'query' && p.required).map((p) => `${p.name}=…`);
  const url = `${baseUrl.replace(/\/+$/, '')}${path}${query.length ? `?${query.join('&')}` : ''}`;
  const lines = [`curl ${op.method === 'GET' ? '' : `-X ${op.method} `}'${url}'`];
  if (op.security) lines.push("  -H 'Authorization: Bearer <your key>'");
  const body = (item.requestBody as Schema | undefined)?.content as Record<string, Schema> | undefined;
  const jsonBody = body?.['application/json'];
  if (jsonBody) {
    lines.push("  -H 'Content-Type: application/json'");
    lines.push(`  -d '${clippedJson(exampleValue(doc, jsonBody.schema), 24).replace(/'/g, "'\\''")}'`);
  } else if (body?.['application/octet-stream']) {
    lines.push("  -H 'Content-Type: application/octet-stream'", '  --data-binary @file.mp3');
  }
  const responses = (item.responses ?? {}) as Record<string, Schema>;
  const success = Object.keys(responses).find((s) => s.startsWith('2'));
  let response: OperationExample['response'] = null;
  if (success) {
    const content = (responses[success]!.content ?? {}) as Record<string, Schema>;
    const [contentType, c] = Object.entries(content)[0] ?? [null, undefined];
    const isJson = contentType !== null && /json/.test(contentType) && c?.schema !== undefined;
    response = { status: success, contentType, body: isJson ? clippedJson(exampleValue(doc, c!.schema)) : null };
  }
  return { request: lines.join(' \\\n'), response };
}
