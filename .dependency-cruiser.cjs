// Layering rules, enforced by `npm run lint` (docs/architecture.md explains each).
/** The pure domain (shared/domain/): plain functions over values, no I/O, no framework. */
const PURE = '^shared/domain/|^shared/sat/sorted-line-index\\.ts$';
/** What only the development entries and the tests may start. */
const DEV_ENTRIES = '^(bin/(start|web|worker|dev-services)\\.ts|test/|bench/|chaos/|fakes/)';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle makes two modules one: neither can be read, tested or moved alone.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'fakes-only-from-dev-entries',
      severity: 'error',
      comment: 'The fakes of SAT, the PAC and SMTP are for development and tests; production never loads them.',
      from: { pathNot: DEV_ENTRIES },
      to: { path: '^fakes/' },
    },
    {
      name: 'no-test-code-in-production',
      severity: 'error',
      comment: 'Production code never imports the test harness, benchmarks or chaos scenarios.',
      from: { pathNot: '^(test|bench|chaos)/' },
      to: { path: '^(test|bench|chaos)/' },
    },
    {
      name: 'no-dev-entry-in-production',
      severity: 'error',
      comment: 'The development entries start fakes; only tests, benchmarks and chaos start them.',
      from: { pathNot: '^(bin/(start|web|worker)\\.ts|test/|bench/|chaos/)' },
      to: { path: '^bin/(start|web|worker|dev-services)\\.ts$' },
    },
    {
      name: 'pure-domain-has-no-io',
      severity: 'error',
      comment: 'The pure domain (CFDI, money, tax ids, QR encoding) is unit-tested as plain functions: no database, queue, HTTP, file or process access.',
      from: { path: PURE },
      to: { dependencyTypesNot: ['core', 'npm', 'type-only'], pathNot: PURE },
    },
    {
      name: 'pure-domain-has-no-io-builtins',
      severity: 'error',
      comment: 'Computation builtins (crypto, zlib) are fine; file, network and process access are not.',
      from: { path: PURE },
      to: { dependencyTypes: ['core'], path: '^(node:)?(fs|fs/promises|net|http|https|http2|tls|dgram|dns|child_process|cluster|worker_threads|process|readline)$' },
    },
    {
      name: 'pure-domain-has-no-io-packages',
      severity: 'error',
      comment: 'No database, queue, Redis, HTTP framework or logger in the pure domain.',
      from: { path: PURE },
      to: { dependencyTypes: ['npm'], path: '^node_modules/(knex|pg|bullmq|ioredis|koa|@koa|koa-body|pino|nodemailer|sharp|pdfkit|undici)/' },
    },
    {
      name: 'platform-knows-no-feature',
      severity: 'error',
      comment: 'shared/platform/ (config, database, queues, logging, metrics, storage, crypto) is what features stand on; it reaches no adapter, repository or feature (SAT\'s reference data in shared/sat/ is allowed).',
      from: { path: '^shared/platform/' },
      to: { path: '^shared/', pathNot: '^shared/(platform|domain|sat)/' },
    },
    {
      name: 'adapters-are-ports-to-outside',
      severity: 'error',
      comment: 'shared/adapters/ (PAC, CSF, e-mail) talk to one outside party each; they use the platform and the domain, never repositories or features.',
      from: { path: '^shared/adapters/' },
      to: { path: '^shared/', pathNot: '^shared/(platform|domain|sat|adapters)/' },
    },
    {
      name: 'shared-does-not-import-processes',
      severity: 'error',
      comment: 'shared/ is used by api/ and workers/; it never reaches back into either.',
      from: { path: '^shared/' },
      to: { path: '^(api|workers|bin|cli|web)/' },
    },
    {
      name: 'workers-and-cli-do-not-import-api',
      severity: 'error',
      comment: 'api/ (its contract in api/contract/: request schemas, answer schemas, views) is the web process\'s; workers and the CLI use shared/, which holds whatever both processes need.',
      from: { path: '^(workers|cli)/' },
      to: { path: '^api/' },
    },
    {
      name: 'contract-imports-no-route',
      severity: 'error',
      comment: 'api/contract/ is shapes and the views that fill them: it uses shared/ and itself, never a route, middleware or step, so the OpenAPI document and the tests can load it alone.',
      from: { path: '^api/contract/' },
      to: { path: '^(api|web)/', pathNot: '^api/contract/' },
    },
    {
      name: 'client-package-stands-alone',
      severity: 'error',
      comment: 'The published client depends on nothing of the service: only itself and Node builtins.',
      from: { path: '^clients/typescript/' },
      to: { pathNot: '^clients/typescript/', dependencyTypesNot: ['core'] },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.js', '.json', '.d.ts'] },
    exclude: { path: '^dist/' },
  },
};
