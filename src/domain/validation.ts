/**
 * One ajv setup for every schema, and one way to word its errors. The content lint and the API's
 * problem details both use `describeErrors`, so a person sees the same sentence for the same
 * mistake wherever they make it.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { TSchema } from '@sinclair/typebox';

// ajv-formats is CommonJS; under Node's ESM loader the callable is the default export.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020,
) => Ajv2020;

export interface FieldError {
  /** JSON Pointer into the validated document ("" is the document itself). */
  pointer: string;
  detail: string;
}

export interface AjvOptions {
  /** Fill in schema defaults (content loading); never for request bodies, which stay as sent. */
  useDefaults?: boolean;
  /** Coerce strings to numbers and booleans (query strings). */
  coerceTypes?: boolean;
}

export function createAjv(options: AjvOptions = {}): Ajv2020 {
  const ajv = new Ajv2020({
    allErrors: true,
    strict: false,
    useDefaults: options.useDefaults ?? false,
    coerceTypes: options.coerceTypes ?? false,
    validateFormats: true,
  });
  addFormats(ajv);
  return ajv;
}

const compiledPlain = new WeakMap<object, ValidateFunction>();
const compiledDefaults = new WeakMap<object, ValidateFunction>();
let compiledCount = 0;

/** How many validators `validatorFor` has compiled in this process (a test can tell a warm-up held). */
export function validatorsCompiled(): number {
  return compiledCount;
}

/**
 * The compiled validator of `schema` (compiled once per schema object). Each schema gets its own
 * ajv instance: ajv registers every `$id` it meets, nested ones included, and refuses a second,
 * different schema under the same `$id` (a model embedded with a field-specific description, or
 * the same module evaluated twice in one process). No schema refers to another by `$ref`, so
 * nothing is lost by not sharing.
 */
export function validatorFor(schema: TSchema, options: { useDefaults?: boolean } = {}): ValidateFunction {
  const cache = options.useDefaults ? compiledDefaults : compiledPlain;
  let fn = cache.get(schema);
  if (!fn) {
    fn = createAjv({ useDefaults: options.useDefaults ?? false }).compile(schema);
    cache.set(schema, fn);
    compiledCount++;
  }
  return fn;
}

/** Validate `value` against `schema`; returns readable errors, empty when valid. */
export function validate(schema: TSchema, value: unknown, options: { useDefaults?: boolean } = {}): FieldError[] {
  const fn = validatorFor(schema, options);
  return fn(value) ? [] : describeErrors(fn.errors ?? [], value);
}

const PATTERN_WORDS: Record<string, string> = {
  '^[0-9]{4}(-[0-9]{2}-[0-9]{2})?$': 'a date "YYYY-MM-DD" or a year "YYYY"',
  Z$: 'a UTC timestamp ending in "Z"',
  '^https://': 'an https:// URL',
  '^[0-9a-fA-F]{64}$': 'exactly 64 hexadecimal characters (a SHA-256 digest)',
  '^[a-z0-9]+(?:-[a-z0-9]+)*$': 'a lower-case slug of letters, digits and single hyphens',
  '^[0-9]{1,3}:[0-5][0-9]$': 'a duration "m:ss"',
  '^[0-9]+\\.[0-9]+\\.[0-9]+$': 'a version "MAJOR.MINOR.PATCH"',
  '^[A-Za-z0-9][A-Za-z0-9._-]*$': 'a plain file name (letters, digits, ".", "_", "-"; no folders)',
  '^[A-Za-z0-9][A-Za-z0-9._:-]*$': 'a letter or digit followed by letters, digits, ".", "_", ":" or "-"',
};

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'object') return 'an object';
  return String(value);
}

function valueAt(root: unknown, pointer: string): unknown {
  if (pointer === '') return root;
  let cur: unknown = root;
  for (const raw of pointer.slice(1).split('/')) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * Turn ajv errors into one readable sentence per violation, each pointing at the field
 * (`/rights/evidenceUrls`), or at the missing/unknown property itself.
 */
export function describeErrors(errors: ErrorObject[], root: unknown): FieldError[] {
  const out: FieldError[] = [];
  const seen = new Set<string>();
  for (const e of errors) {
    let pointer = e.instancePath;
    let detail: string;
    const p = e.params as Record<string, unknown>;
    switch (e.keyword) {
      case 'required':
        pointer = `${pointer}/${escapePointer(String(p.missingProperty))}`;
        detail = 'is required';
        break;
      case 'additionalProperties':
        pointer = `${pointer}/${escapePointer(String(p.additionalProperty))}`;
        detail = 'is not an allowed field here';
        break;
      case 'enum':
        detail = `must be one of: ${(p.allowedValues as unknown[]).map((v) => (v === null ? 'null' : String(v))).join(', ')} (got ${describeValue(valueAt(root, pointer))})`;
        break;
      case 'const':
        detail = `must equal ${JSON.stringify(p.allowedValue)} (got ${describeValue(valueAt(root, pointer))})`;
        break;
      case 'type': {
        const expected = Array.isArray(p.type) ? (p.type as string[]).join(' or ') : String(p.type);
        detail = `must be ${expected === 'integer' ? 'an integer' : expected} (got ${describeValue(valueAt(root, pointer))})`;
        break;
      }
      case 'maxLength':
        detail = `must be at most ${p.limit} characters (got ${String(valueAt(root, pointer) ?? '').length})`;
        break;
      case 'minLength':
        detail = p.limit === 1 ? 'must not be empty' : `must be at least ${p.limit} characters`;
        break;
      case 'minItems':
        detail = `must have at least ${p.limit} item${p.limit === 1 ? '' : 's'}`;
        break;
      case 'maxItems':
        detail = `must have at most ${p.limit} items`;
        break;
      case 'minimum':
      case 'maximum':
      case 'exclusiveMinimum':
      case 'exclusiveMaximum':
        detail = `must be ${e.keyword === 'minimum' ? '>=' : e.keyword === 'maximum' ? '<=' : e.keyword === 'exclusiveMinimum' ? '>' : '<'} ${p.limit} (got ${describeValue(valueAt(root, pointer))})`;
        break;
      case 'pattern':
        detail = `must be ${PATTERN_WORDS[String(p.pattern)] ?? `text matching ${String(p.pattern)}`} (got ${describeValue(valueAt(root, pointer))})`;
        break;
      case 'format':
        detail = `must be ${p.format === 'date-time' ? 'an RFC 3339 date-time' : p.format === 'uri' ? 'an absolute URI' : `a valid ${String(p.format)}`} (got ${describeValue(valueAt(root, pointer))})`;
        break;
      case 'anyOf':
      case 'oneOf':
        // The branches already reported their own errors; the umbrella adds nothing readable.
        continue;
      default:
        detail = e.message ?? 'is invalid';
    }
    const key = `${pointer}\u0000${detail}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ pointer, detail });
  }
  return out;
}
