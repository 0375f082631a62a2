import { StartupHint } from './check-services.js';

/** An external party's address, which a production entry needs: empty is one clear line at startup, not a fake. */
export function requiredAdapterUrl(name: 'CSF_BASE_URL' | 'PAC_BASE_URL' | 'SMTP_URL', value: string): string {
  if (!value) throw new StartupHint(`${name} is empty: set it, or start the development entry (npm start, npm run web, npm run worker), which starts a fake on loopback.`);
  return value;
}
