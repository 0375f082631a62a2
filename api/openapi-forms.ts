/**
 * The uploads of the OpenAPI document: every multipart/form-data request body as a named schema whose fields
 * say what they are, with the media types each file part may have (`encoding`), and a curl sample built from
 * its example (api/openapi-examples.ts). The forms are read by hand (api/middleware/multipart-body.ts), so the
 * field names and limits here come from the code that reads them.
 */
import { CSF_MAX_BYTES } from './buyer/prefill-from-csf.js';
import { CSD_FIELDS, CSD_MAX_FILE_BYTES } from '../shared/csd/check-csd.js';
import { LOGO_LIMITS, LOGO_TARGETS } from '../shared/images/normalize-logo.js';
import { updateIssuerFormSchema } from './contract/issuers/issuer-schema.js';
import { LOGO_ANIMATIONS } from '../shared/merchants/merchant.js';

const MB = 1024 * 1024;
const file = (description: string) => ({ type: 'string', format: 'binary', description });
const sizeOf = (bytes: number) => (bytes >= MB ? `${bytes / MB} MB` : `${bytes / 1024} KB`);

/** What the logo decoder takes (shared/images/normalize-logo.ts); a part's own Content-Type is not trusted. */
const IMAGE_TYPES = 'image/png, image/jpeg, image/webp, image/gif, image/avif, image/tiff';
const logoRules = `Decoded and re-encoded, never stored as sent: a raster image (PNG, JPEG, WebP, GIF, AVIF, TIFF; no SVG) of at most ${sizeOf(LOGO_LIMITS.maxBytes)} and ${LOGO_LIMITS.maxPixels / 1_000_000} million pixels`;
const invoiceLogo = `The logo printed on the invoice PDF, made a PNG within ${LOGO_TARGETS.invoice.width}×${LOGO_TARGETS.invoice.height}. ${logoRules}`;
const { $id: _issuerFormId, ...issuerForm } = updateIssuerFormSchema;

export const FORMS = {
  CsdUploadForm: {
    schema: {
      type: 'object',
      description:
        "The merchant's CSD (Certificado de Sello Digital) as SAT issued it. The three parts are checked against each other, the calendar and the issuer's RFC before anything is stored; the key and its password are stored encrypted and never answered.",
      required: [CSD_FIELDS.cerFile, CSD_FIELDS.keyFile, CSD_FIELDS.password],
      properties: {
        [CSD_FIELDS.cerFile]: file(`The certificate (.cer, DER); its file name is kept (\`cerFileName\`). At most ${sizeOf(CSD_MAX_FILE_BYTES)}`),
        [CSD_FIELDS.keyFile]: file(`The certificate's private key (.key, password-protected PKCS#8 DER), not a FIEL's. At most ${sizeOf(CSD_MAX_FILE_BYTES)}`),
        [CSD_FIELDS.password]: { type: 'string', format: 'password', description: "The private key's password" },
        [CSD_FIELDS.serialNumberPrefix]: { type: 'string', maxLength: 25, description: "The Serie of this merchant's CFDIs (optional; no `|`)" },
      },
    },
    encoding: {
      [CSD_FIELDS.cerFile]: { contentType: 'application/pkix-cert, application/octet-stream' },
      [CSD_FIELDS.keyFile]: { contentType: 'application/pkcs8, application/octet-stream' },
    },
  },
  MerchantLogosForm: {
    schema: {
      type: 'object',
      description: 'Any of the fields, at least one; the ones left out keep their value.',
      minProperties: 1,
      properties: {
        invoiceLogo: file(invoiceLogo),
        appLogo: file(`The logo on the buyer's page, made a WebP within ${LOGO_TARGETS.app.width}×${LOGO_TARGETS.app.height}. ${logoRules}`),
        logoAnimation: { type: 'string', enum: LOGO_ANIMATIONS, description: "How the buyer's page shows the app logo" },
      },
    },
    encoding: { invoiceLogo: { contentType: IMAGE_TYPES }, appLogo: { contentType: IMAGE_TYPES } },
  },
  IssuerUpdateForm: {
    schema: {
      ...issuerForm,
      description: 'The issuer\'s editable data; its RFC, idCIF, name and zip come from SAT\'s CSF ("Synchronize").',
      properties: {
        groupId: { ...issuerForm.properties.groupId, description: "The account's group the issuer belongs to (another one moves it)" },
        alias: { ...issuerForm.properties.alias, description: "The issuer's name within the account" },
        email: { ...issuerForm.properties.email, description: "The issuer's contact address" },
        taxRegimeCode: { ...issuerForm.properties.taxRegimeCode, description: "c_RegimenFiscal key in force today and allowed for the RFC's kind (company or person)" },
        status: { ...issuerForm.properties.status, description: 'Left out: unchanged' },
        logo: file(`Optional. ${invoiceLogo}`),
      },
    },
    encoding: { logo: { contentType: IMAGE_TYPES } },
  },
  CsfUploadForm: {
    schema: {
      type: 'object',
      description: "The buyer's tax-status certificate, read in memory and dropped (the QR link's `v`, `t`, `m` go in the query).",
      required: ['document'],
      properties: {
        document: file(
          `The buyer's CSF (Constancia de Situación Fiscal): SAT's PDF, or a photo or scan of the page with its QR (JPEG, PNG, WebP, GIF, HEIF/AVIF, TIFF). At most ${sizeOf(CSF_MAX_BYTES)}`,
        ),
      },
    },
    encoding: { document: { contentType: 'application/pdf, image/jpeg, image/png, image/webp, image/gif, image/heif, image/avif, image/tiff' } },
  },
} as const;

export type FormName = keyof typeof FORMS;

/** The form's schemas, for `components.schemas`. */
export function formSchemas(): { [N in FormName]: (typeof FORMS)[N]['schema'] } {
  return Object.fromEntries(Object.entries(FORMS).map(([name, form]) => [name, form.schema])) as { [N in FormName]: (typeof FORMS)[N]['schema'] };
}

/** A required multipart/form-data request body naming the form's schema, with its parts' media types (Redoc shows the body's description, not the schema's). */
export function formBody(name: FormName) {
  return {
    required: true,
    description: FORMS[name].schema.description,
    content: { 'multipart/form-data': { schema: { $ref: `#/components/schemas/${name}` }, encoding: FORMS[name].encoding } },
  };
}

interface FormOperation {
  security?: Record<string, unknown>[];
  parameters?: { name: string; in: string; required?: boolean }[];
  requestBody?: { content: Record<string, { schema?: { $ref?: string }; example?: unknown }> };
  'x-codeSamples'?: { lang: string; label: string; source: string }[];
}

const shellQuoted = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
const CREDENTIAL_HEADERS: Record<string, string> = { Bearer: '-H "Authorization: Bearer $ACCESS_TOKEN"', ApiKey: '-H "X-API-Key: $API_KEY"' };

/** `curl` sending the form's example: each file part by the file name the example gives it, path and required query parameters as shell variables. */
function curlSample(method: string, url: string, operation: FormOperation, example: Record<string, unknown>, name: FormName): string {
  const properties: Record<string, object> = FORMS[name].schema.properties;
  const isFile = (field: string) => {
    const p = properties[field];
    return p !== undefined && 'format' in p && p.format === 'binary';
  };
  const variable = (param: string) => `$${param.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase()}`;
  const query = (operation.parameters ?? []).filter((p) => p.in === 'query' && p.required).map((p) => `${p.name}=${variable(p.name)}`);
  const path = url.replace(/\{(\w+)\}/g, (_, param: string) => variable(param)) + (query.length > 0 ? `?${query.join('&')}` : '');
  const scheme = Object.keys(operation.security?.[0] ?? {})[0];
  const lines = [
    `curl${method === 'post' ? '' : ` -X ${method.toUpperCase()}`} "${path}"`,
    ...(scheme && CREDENTIAL_HEADERS[scheme] ? [CREDENTIAL_HEADERS[scheme]] : []),
    ...Object.entries(example).map(([field, value]) => `-F ${shellQuoted(`${field}=${isFile(field) ? '@' : ''}${String(value)}`)}`),
  ];
  return lines.join(' \\\n  ');
}

/** Every operation that takes a form gets a curl sample of its example (Redoc shows it beside the payload). */
export function withFormSamples<D extends { servers: { url: string }[]; paths: Record<string, Record<string, unknown>> }>(doc: D): D {
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, value] of Object.entries(item)) {
      const operation = value as FormOperation;
      const media = operation.requestBody?.content['multipart/form-data'];
      const name = media?.schema?.$ref?.replace('#/components/schemas/', '');
      if (!media || !name || !(name in FORMS) || typeof media.example !== 'object' || media.example === null) continue;
      const source = curlSample(method, `${doc.servers[0]?.url ?? ''}${path}`, operation, media.example as Record<string, unknown>, name as FormName);
      operation['x-codeSamples'] = [{ lang: 'Shell', label: 'curl', source }];
    }
  }
  return doc;
}
