// The system Chromium every browser run uses (Debian's package; nothing is downloaded), and the
// flags that keep a headless run quiet and offline. One place for the page tests, the core's
// browser suite, the examples and the runtime matrix.
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

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
