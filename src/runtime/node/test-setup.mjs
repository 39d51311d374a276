// @ts-check
// `agent-sdk test`: imported first (`node --import <this file> --test …`) into every process
// of Node's test runner, so the test files and everything they import load exactly as
// `run` loads the hooks (project-modules.mjs). The binary compiled them beforehand and
// wrote the manifest to the file named by AGENT_SDK_TEST_MANIFEST.

import { readFileSync } from 'node:fs';

import { serveProjectModules } from './project-modules.mjs';
// The test kit's OpenTelemetry providers, registered before any test file (or the hook
// modules it imports) makes a meter, whatever it imports first.
import './sdk/telemetry.cjs';

const installManifest = serveProjectModules();
// Top-level await: Node loads no test file before the loader thread has the manifest.
await installManifest(JSON.parse(readFileSync(/** @type {string} */ (process.env.AGENT_SDK_TEST_MANIFEST), 'utf8')));
