/** The pieces route declarations write their documentation with: a reference, a JSON body, an error answer. */

/** A component schema by name. */
export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
/** JSON content of a component schema. */
export const json = (name: string) => ({ 'application/json': { schema: ref(name) } });
/** Text content of a media type. */
export const text = (type: string) => ({ [type]: { schema: { type: 'string' } } });
/** Binary content, one entry per media type. */
export const binary = (...types: string[]) => Object.fromEntries(types.map((type) => [type, { schema: { type: 'string', format: 'binary' } }]));

/** An error answer (schema `Error`); its example is built from its status and description. */
export const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

/** An optional `Idempotency-Key` header: the same key and body again answer what the first request recorded. */
export const optionalIdempotencyKey = (description: string) => ({
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  schema: { type: 'string', format: 'uuid' },
  description,
});

/** The three query parameters of a QR's link (qr_content), by which the buyer's routes find the sale. */
export const qrLinkQuery = ['v', 't', 'm'].map((name) => ({
  name,
  in: 'query',
  required: true,
  schema: { type: 'string' },
  description: `The \`${name}\` parameter of qr_content`,
}));
