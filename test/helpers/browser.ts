import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Where screenshots of each page state go (not committed; look at them). */
export const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'buyer-page');

type ContextOptions = Parameters<typeof chromium.launchPersistentContext>[1];

/**
 * Debian's chromium driven by playwright-core with a fresh profile. The flags keep it off the network this
 * machine does not have (see the project's CI notes).
 */
async function open(options: ContextOptions): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'af-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    ...options,
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** A phone's viewport and locale: the buyer's page. */
export function openPhone(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  mkdirSync(ARTIFACTS, { recursive: true });
  return open({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, locale: 'es-MX', acceptDownloads: true });
}

/** A laptop's viewport: the integrator's API reference, the operator's pages (with `options` such as a login). */
export function openDesktop(options: ContextOptions = {}): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  return open({ viewport: { width: 1440, height: 900 }, locale: 'en-US', ...options });
}

/** The whole page, or only the screen showing (`fullPage: false`: the API reference is thousands of pixels long, too slow to capture on a loaded machine). */
export async function screenshot(page: Page, name: string, folder = ARTIFACTS, fullPage = true): Promise<void> {
  await page.screenshot({ path: join(folder, `${name}.png`), fullPage, timeout: 60_000 });
}
