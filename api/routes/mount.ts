// Every /api route is mounted from the contract's route table
// (shared/contract/routes.ts, docs/design/architecture.md): its method, path and
// token scope are declared once there, as fastify declares a route as one
// object with its schema; a route file supplies only the handler.
import type { RequestHandler, Router } from 'express';
import type { Db } from 'mongodb';
import { expressPath, routeOf } from '../../shared/contract/routes.js';
import { requireAuth, requireScope } from '../middleware/auth.js';
import { operation as nameOperation } from '../middleware/request-id.js';

/** Mount `handler` at the route the table declares for `operation`: name the operation, authenticate and check its scope, then handle. */
export function mountRoute(router: Router, db: Db, operation: string, handler: RequestHandler): void {
  const route = routeOf(operation);
  const guards: RequestHandler[] =
    route.auth === null ? [] : [route.auth.scope === null ? requireAuth(db) : requireScope(db, route.auth.scope)];
  router[route.method](expressPath(route.path), nameOperation(operation), ...guards, handler);
}
