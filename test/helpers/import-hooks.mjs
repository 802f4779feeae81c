// Module customization hooks of record-imports.mjs (they run on the loader thread).
import { appendFileSync } from 'node:fs';

let file;

export function initialize(data) {
  file = data.file;
}

export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(file, `${process.pid} ${result.url}\n`);
  return result;
}
