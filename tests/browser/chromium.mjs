// Debian's headless Chromium for the browser tests, driven by playwright-core (never a
// downloaded browser). Environment: CHROMIUM (default /usr/bin/chromium).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
// The flags of ../shared/design/toolchain.md; `--headless` comes from
// `headless: true` and `--user-data-dir` from launchPersistentContext (a
// fresh directory per run), which is how Playwright wants them passed.
export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** A persistent context in a fresh profile; `close()` closes it and removes the profile. */
export async function launchChromium(options = {}) {
  const { chromium } = await import('playwright-core');
  const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'earlyexit-chromium-'));
  const context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS,
    ...options,
  });
  return {
    context,
    close: async () => {
      await context.close();
      fs.rmSync(profileDir, { recursive: true, force: true });
    },
  };
}
