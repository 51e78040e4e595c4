// `npm run openapi`: write the OpenAPI document to docs/openapi.json. It is
// committed, so readers and tools see the contract without running the API;
// test/http/openapi.test.ts fails when the committed copy is stale.
import { writeFileSync } from 'node:fs';
import { OPENAPI_FILE, openApiFileText } from './openapi-file.js';

writeFileSync(OPENAPI_FILE, openApiFileText());
process.stderr.write(`wrote ${OPENAPI_FILE}\n`);
