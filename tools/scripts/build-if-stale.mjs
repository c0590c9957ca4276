#!/usr/bin/env node
// `npm install`'s prepare step and `npm test`'s build: both packages are built only when a source is
// newer than the build (tools/lib/build-if-stale.mjs), so an install or a test run on an unchanged
// tree does not spend a minute building again. `npm run build` always builds.
import { buildIfStale } from '../lib/build-if-stale.mjs';

buildIfStale();
