import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { validator } from '../../shared/platform/validation/ajv.js';

/**
 * A route's JSON body as the route declares it: the parser's options (its limit, whether a form-urlencoded
 * body is taken too) and the validation routerOf runs before the handler, whose value the handler gets as
 * `ctx.state.body`, typed from the schema.
 */
export interface JsonRequest<B> {
  /** Also application/x-www-form-urlencoded (OAuth's token request). */
  readonly urlencoded: boolean;
  /** The parser's limit ('100kb'); JSON_BODY_LIMIT unless given. */
  readonly limit?: string;
  readonly validate: (value: unknown) => B;
}

interface JsonRequestOptions {
  urlencoded?: boolean;
  limit?: string;
  /** A refusal more precise than the schema's, run before it (e.g. a field that can be set only at creation). */
  first?: (raw: unknown) => void;
}

/** A JSON body validated against `schema` (api/contract/): 400 `validation_failed` with details before the handler runs. */
export function jsonRequest<const S extends JSONSchema, B = FromSchema<S>>(schema: S, options: JsonRequestOptions = {}): JsonRequest<B> {
  const validate = validator<S, B>(schema);
  const { first } = options;
  return {
    urlencoded: options.urlencoded ?? false,
    ...(options.limit === undefined ? {} : { limit: options.limit }),
    validate: first
      ? (raw) => {
          first(raw);
          return validate(raw);
        }
      : validate,
  };
}

/**
 * A JSON body the router parses and the route's own step validates, because it judges it together with the
 * request's headers (their refusals come first); the declaration says which step.
 */
export const jsonParsedOnly: JsonRequest<unknown> = { urlencoded: false, validate: (raw) => raw };
