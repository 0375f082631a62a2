import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import * as ajvFormats from 'ajv-formats';
import { AppError, type ErrorDetail } from '../errors.js';
import { decimalPlaces, integerDigits } from '../../domain/money.js';
import { cfdiTextProblem, type CfdiTextField } from '../../sat/cfdi-text-rules.js';

// ajv-formats is CommonJS with `exports.default`; under NodeNext the plugin sits on .default.
const addFormats = ajvFormats.default.default;

/** One ajv instance for every request schema. */
export const ajv = new Ajv({ allErrors: true, strict: true, coerceTypes: false, useDefaults: false });
addFormats(ajv, ['date-time', 'uuid', 'email', 'uri']);

/** `x-decimal`: numeric(15,6) — at most 9 integer digits and 6 decimals. */
ajv.addKeyword({
  keyword: 'x-decimal',
  type: 'number',
  schemaType: 'boolean',
  errors: true,
  validate: function decimal(enabled: boolean, value: number) {
    if (!enabled) return true;
    return Number.isFinite(value) && decimalPlaces(value) <= 6 && integerDigits(value) <= 9;
  },
});

/**
 * `x-cfdi-text`: the value goes into the named CFDI attribute, so it must pass SAT's schema there (pattern
 * and lengths after whitespace collapse, data/sat/cfdi-text-rules.json): refused at the door, not by the PAC
 * when the buyer confirms.
 */
ajv.addKeyword({
  keyword: 'x-cfdi-text',
  type: 'string',
  schemaType: 'string',
  errors: true,
  validate: function cfdiText(path: CfdiTextField, value: string): boolean {
    const problem = cfdiTextProblem(path, value);
    if (problem === undefined) return true;
    (cfdiText as { errors?: Partial<ErrorObject>[] }).errors = [{ keyword: 'x-cfdi-text', message: problem, params: { attribute: path } }];
    return false;
  },
});

/** `instancePath` "/operation_data/0/quantity" -> "operation_data[0].quantity". */
function fieldOf(err: ErrorObject): string {
  const segments = err.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (err.keyword === 'required') segments.push(String(err.params.missingProperty));
  if (err.keyword === 'additionalProperties') segments.push(String(err.params.additionalProperty));
  let field = '';
  for (const s of segments) field += /^[0-9]+$/.test(s) ? `[${s}]` : field === '' ? s : `.${s}`;
  return field || '(body)';
}

function detailOf(err: ErrorObject): ErrorDetail {
  const field = fieldOf(err);
  switch (err.keyword) {
    case 'required':
      return { field, code: 'required', message: `${field} is required.` };
    case 'additionalProperties':
      return { field, code: 'unknown_field', message: `${field} is not a field of this request.` };
    case 'type':
      return { field, code: 'invalid_type', message: `${field} must be of type ${String(err.params.type)}.` };
    case 'enum':
      return { field, code: 'invalid_value', message: `${field} must be one of ${(err.params.allowedValues as unknown[]).join(', ')}.` };
    case 'format':
      return { field, code: 'invalid_format', message: `${field} must be a valid ${String(err.params.format)}.` };
    case 'const':
      return { field, code: 'invalid_value', message: `${field} must be ${JSON.stringify(err.params.allowedValue)}.` };
    // The pattern itself: what a client must send, rather than only that it did not (issue #39).
    case 'pattern':
      return { field, code: 'invalid_format', message: `${field} must match ${String(err.params.pattern)}.` };
    case 'x-cfdi-text':
      return {
        field,
        code: 'invalid_for_cfdi',
        message: `${field} ${err.message ?? "is refused by SAT's schema"} (it is written to ${String(err.params.attribute)} of the CFDI).`,
      };
    case 'x-decimal':
      return { field, code: 'invalid_precision', message: `${field} allows at most 9 integer digits and 6 decimals.` };
    case 'minimum':
    case 'exclusiveMinimum':
    case 'maximum':
      return { field, code: 'out_of_range', message: `${field} ${err.message ?? 'is out of range'}.` };
    case 'minItems':
    case 'maxItems':
    case 'minLength':
    case 'maxLength':
    case 'maxProperties':
      return { field, code: 'invalid_length', message: `${field} ${err.message ?? 'has an invalid length'}.` };
    default:
      return { field, code: 'invalid', message: `${field} ${err.message ?? 'is invalid'}.` };
  }
}

/** ajv errors as the spec's details[], one per field and problem (anyOf noise dropped). */
export function toDetails(errors: ErrorObject[] | null | undefined): ErrorDetail[] {
  const seen = new Set<string>();
  const out: ErrorDetail[] = [];
  for (const err of errors ?? []) {
    if (err.keyword === 'anyOf') continue;
    // For "null or object" fields, the "must be null" branch error says nothing useful.
    if (err.keyword === 'type' && err.params.type === 'null') continue;
    const d = detailOf(err);
    const id = `${d.field}|${d.code}`;
    if (!seen.has(id)) {
      seen.add(id);
      out.push(d);
    }
  }
  return out;
}

/**
 * Compiles a schema into a function that returns the value, typed from the schema itself (json-schema-to-ts:
 * one source for the contract and its TypeScript type), or throws a 400 with details.
 */
export function validator<const S extends JSONSchema, T = FromSchema<S>>(schema: S): (value: unknown) => T {
  const validate: ValidateFunction = ajv.compile(schema);
  return (value: unknown): T => {
    if (!validate(value)) {
      throw new AppError(400, 'validation_failed', 'The request has invalid or missing fields.', { details: toDetails(validate.errors) });
    }
    return value as T;
  };
}
