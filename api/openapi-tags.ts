/**
 * The reference's chapters: each operation tagged by its path, so GET /docs groups 60 operations the way an
 * integrator looks for them (the POS's QRs first, then the account's resources, the buyer's routes, the service).
 */
const TAGS: { name: string; description: string; paths: RegExp }[] = [
  { name: 'QRs', description: 'A point of sale creates the QR of a sale and follows it (API key)', paths: /^\/v1\/qrs(\/\{qrId\}|\/invoices)?$/ },
  {
    name: 'Books',
    description: "The merchant's QRs and CFDIs listed with filters by cursor, a period's CFDIs exported, their XMLs in one ZIP, and a period added up (API key or bearer token)",
    paths: /^\/v1\/qrs\/invoices\/(export|summary|exports(\/\{exportId\})?)$/,
  },
  { name: 'Invoices', description: "A sale's CFDI: XML, PDF, cancellation (API key or bearer token)", paths: /^\/v1\/qrs\/invoices\/(uuid|\{uuid\})/ },
  { name: 'Credit notes', description: 'CFDI type E for parts of stamped invoices', paths: /^\/v1\/qrs\/invoices\/credit-notes/ },
  { name: 'Payment complements', description: 'CFDI type P for payments of PPD invoices', paths: /^\/v1\/qrs\/invoices\/payment-complements/ },
  { name: 'Access tokens', description: 'OAuth 2.0 client credentials for the management API', paths: /^\/v1\/auth\// },
  { name: 'Issuers', description: "The account's taxpayers (RFC, regime, CSF)", paths: /^\/v1\/qrs\/issuers(\/\{issuerId\}(\/synchronize)?)?$/ },
  { name: 'Global invoices', description: "The issuer's global invoice for sales nobody invoiced", paths: /^\/v1\/qrs\/issuers\/\{issuerId\}\/global-/ },
  { name: 'Merchants', description: 'Points of sale: CSD, logos, API keys, invoicing rules', paths: /^\/v1\/qrs\/merchants(?!\/\{merchantId\}\/products)/ },
  { name: 'Products', description: "A merchant's catalog: QR concepts may name a product by sku", paths: /^\/v1\/qrs\/merchants\/\{merchantId\}\/products/ },
  { name: 'Webhooks', description: "Signed events to the account's endpoints, and their delivery log", paths: /^\/v1\/webhooks\// },
  {
    name: 'Buyer',
    description: 'The self-invoicing page and its API: the signed QR link is the credential',
    paths: /^(\/v1\/public\/qrs\/(resolve|tickets|preview|confirm|email|invoice-files|status|code|csf|offline-claim)|\/q($|\/))/,
  },
  { name: 'Public files', description: 'Signed links to QR images, invoice files, export ZIPs and logos', paths: /^\/v1\/public\/(invoices|exports|files|qrs\/images)\// },
  { name: 'Earlier contract', description: 'Deprecated: answered until its sunset', paths: /^\/api\/v1\// },
  { name: 'Service', description: "Health, metrics, the operator's status page and this documentation", paths: /^\/(health|metrics|admin\/status|openapi\.json|docs.*)?$/ },
];

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** The first chapter whose paths match; every documented path has one (a test checks). */
export function tagOf(path: string): string | undefined {
  return TAGS.find((t) => t.paths.test(path))?.name;
}

/** Every operation tagged, and the tags listed with their descriptions in reading order. */
export function withTags<D extends { paths: Record<string, Record<string, unknown>> }>(doc: D): D & { tags: { name: string; description: string }[] } {
  for (const [path, item] of Object.entries(doc.paths)) {
    const tag = tagOf(path);
    for (const method of METHODS) {
      const op = item[method] as { tags?: string[] } | undefined;
      if (op && tag) op.tags ??= [tag];
    }
  }
  return { ...doc, tags: TAGS.map(({ name, description }) => ({ name, description })) };
}
