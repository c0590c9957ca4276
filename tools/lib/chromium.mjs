// The system Chromium every browser run uses (nothing is downloaded): $CHROMIUM_PATH, else the
// first that exists of where Debian, Ubuntu's snap, Homebrew and the macOS app put it (Debian's
// path when none does, for the messages). The flags keep a headless run quiet and offline. One
// place for the page tests, the core's browser suite, the examples and the runtime matrix.
import { existsSync } from 'node:fs';

const CANDIDATES = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/snap/bin/chromium',
  '/opt/homebrew/bin/chromium',
  '/usr/local/bin/chromium',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
];

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? CANDIDATES.find((p) => existsSync(p)) ?? CANDIDATES[0];

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
];
