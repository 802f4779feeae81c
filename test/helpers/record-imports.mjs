// `node --import ./test/helpers/record-imports.mjs …`: appends "<pid> <module URL>" for every
// module a process (and, through execArgv, each child process) resolves to the file named by
// IMPORT_LOG — so a test can see which modules the HTTP process loaded and which it did not.
import { register } from 'node:module';

if (process.env.IMPORT_LOG) register('./import-hooks.mjs', import.meta.url, { data: { file: process.env.IMPORT_LOG } });
