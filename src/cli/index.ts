#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { createCliContext } from './context.js';
import { runCli } from './program.js';

// src/cli/index.ts and dist/cli/index.js both sit two levels below the package root.
const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

process.exitCode = await runCli(process.argv.slice(2), createCliContext(process.env), version);
