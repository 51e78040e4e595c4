// GET /api/v1/openapi.json: the OpenAPI 3.1 document (shared/schemas/openapi.ts),
// built once at start from the schemas the routes validate with. No token:
// clients and tools read it before they have one.
import { Router } from 'express';
import { buildOpenApiDocument } from '../../shared/schemas/openapi.js';

export function openApiRoutes(): Router {
  const router = Router();
  const body = JSON.stringify(buildOpenApiDocument());
  router.get('/api/v1/openapi.json', (_req, res) => {
    res.type('application/json').send(body);
  });
  return router;
}
