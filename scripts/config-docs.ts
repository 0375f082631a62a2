/**
 * `.env.example` and docs/configuration.md, derived from the one configuration schema (shared/platform/config.ts).
 * `npm run docs:config` writes them; test/scripts/config-docs.test.ts fails when they differ.
 */
import { SETTINGS, type Setting } from '../shared/platform/config.js';

const settings = (): Setting<unknown>[] => Object.values(SETTINGS) as Setting<unknown>[];

/** The default as Markdown. */
function shownDefault(s: Setting<unknown>): string {
  if (s.secret) return s.fallback === '' ? 'empty' : 'a development value';
  if (s.shownDefault !== undefined) return s.shownDefault;
  const fallback = typeof s.fallback === 'string' ? s.fallback : s.fallback('development', {});
  return fallback === '' ? 'empty' : `\`${fallback}\``;
}

export function renderEnvExample(): string {
  const lines = [
    '# Generated from shared/platform/config.ts by `npm run docs:config`; every variable is optional in development.',
    '# Production needs the secrets (QR_HMAC_KEY, URL_SIGNING_KEY, ENCRYPTION_KEY) and the external parties.',
    'NODE_ENV=development',
  ];
  for (const s of settings()) {
    lines.push('', `# ${s.doc.replaceAll('`', '')}`);
    if (s.shownDefault !== undefined && !s.secret) lines.push(`# Default: ${s.shownDefault.replaceAll('`', '')}`);
    const value = s.secret || typeof s.fallback !== 'string' ? '' : s.fallback;
    lines.push(`${value === '' && s.shownDefault !== undefined ? '# ' : ''}${s.name}=${value}`);
  }
  return `${lines.join('\n')}\n`;
}

export function renderConfigDoc(): string {
  const rows = settings().map((s) => `| \`${s.name}\` | ${shownDefault(s)} | ${s.doc.replaceAll('|', '\\|')} |`);
  return [
    '# Configuration',
    '',
    '<!-- Generated from shared/platform/config.ts by `npm run docs:config`; edit the schema there, not this file. -->',
    '',
    "One module (`shared/platform/config.ts`) reads the environment, as one schema: each setting's variable, default,",
    'parser and meaning. This page and `.env.example` are generated from it. Every variable has a development',
    'default; production refuses to start with the development secrets or without the external parties.',
    '',
    '| variable | default | meaning |',
    '|---|---|---|',
    "| `NODE_ENV` | `development` | `production` requires the secrets and the external parties' addresses; `test` is set by the test harness |",
    ...rows,
    '',
  ].join('\n');
}
