// Where the committed OpenAPI document lives and its exact text, shared by
// `npm run openapi` (which writes it) and the test that checks it is fresh.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildOpenApiDocument } from '../shared/schemas/openapi.js';

// This file runs as dist/scripts/openapi-file.js; the checkout is two levels up.
export const OPENAPI_FILE = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'openapi.json');

/** Two-space JSON and a final newline. */
export const openApiFileText = (): string => `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
