import { expect } from 'chai';
import { AppError } from '../../../../shared/platform/errors.js';
import { validator } from '../../../../shared/platform/validation/ajv.js';

const validate = validator({
  type: 'object',
  additionalProperties: false,
  properties: {
    v: { type: 'string', const: '2' },
    zip: { type: 'string', pattern: '^[0-9]{5}$' },
    method: { type: 'string', enum: ['PUE', 'PPD'] },
  },
} as const);

function detailsOf(value: unknown): { field: string; code: string; message: string }[] {
  try {
    validate(value);
  } catch (err) {
    if (err instanceof AppError) return err.details as { field: string; code: string; message: string }[];
    throw err;
  }
  throw new Error('accepted');
}

describe('issue #39: a validation message says what is allowed, not only that the value is not', () => {
  it('names the constant, the pattern and the allowed values', () => {
    expect(detailsOf({ v: '1' })).to.deep.equal([{ field: 'v', code: 'invalid_value', message: 'v must be "2".' }]);
    expect(detailsOf({ zip: '1234' })).to.deep.equal([{ field: 'zip', code: 'invalid_format', message: 'zip must match ^[0-9]{5}$.' }]);
    expect(detailsOf({ method: 'XYZ' })).to.deep.equal([{ field: 'method', code: 'invalid_value', message: 'method must be one of PUE, PPD.' }]);
  });
});
