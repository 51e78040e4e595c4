// The MCP server of `bookstage mcp` (docs/guide/agents.md): the SDK's McpServer, with
// tools registered on its underlying Server as raw JSON Schemas (McpServer's
// registerTool takes zod schemas only, and the tools' schemas must be the
// API's own), and the staged-operation resource template registered on
// McpServer itself. Every tool call is one request to the HTTP API.
import { routeOf } from '../../../shared/contract/routes.js';
import { pathOf } from '../../../shared/contract/route-paths.js';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { Profile } from '../config.js';
import { dataOf, errorOf, NetworkError, send, type RetryPolicy } from '../http-client.js';
import { offeredTools, TOOLS, type Allowances } from './tool-catalog.js';
import { bindTool, callTool } from './tool-call.js';
import { outputSchemaFor } from './tool-schemas.js';

export const SERVER_NAME = 'bookstage';
export const SERVER_VERSION = '0.1.0';

/** MCP's "resource not found" (the specification's -32002). */
const RESOURCE_NOT_FOUND = -32002;
const STAGED_URI = 'bookstage://staged-operations/{id}';
const RESOURCE_LIST_LIMIT = 20;

export interface McpOptions {
  profile: Profile;
  allow: Allowances;
  policy: RetryPolicy;
}

export function createMcpServer(options: McpOptions): McpServer {
  const { profile, policy } = options;
  const mcp = new McpServer(
    { name: SERVER_NAME, version: SERVER_VERSION },
    {
      instructions:
        'Stage bookkeeping changes (bank reconciliations, FIFO link repairs, ledger reversals, bank statement imports, inbox duplicate resolutions) for a person to review; ' +
        'read the books (bank accounts, transactions, ledger entries, counterparties, inbox documents) and the inbox duplicate overview to find the ids to stage. ' +
        'Every staging tool takes dry_run to see the plan without staging it. ' +
        'Staging never changes the books; a person approves and applies. Amounts are integer minor units (56000 = 560.00 EUR).',
    },
  );

  const tools = offeredTools(options.allow).map(bindTool);
  const byName = new Map(tools.map((t) => [t.spec.name, t]));
  const listed: Tool[] = tools.map((t) => ({
    name: t.spec.name,
    title: t.spec.title,
    description: t.spec.description,
    inputSchema: t.inputSchema as Tool['inputSchema'],
    outputSchema: outputSchemaFor(t.spec.route, `${t.spec.title}: result`) as Tool['outputSchema'],
    annotations: { title: t.spec.title, ...t.spec.annotations },
  }));
  mcp.server.registerCapabilities({ tools: {} });
  mcp.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));
  mcp.server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = byName.get(request.params.name);
    if (!tool) {
      const gate = TOOLS.find((t) => t.name === request.params.name)?.gate;
      const hint = gate ? ` (offered only when a person starts the server with --allow-${gate})` : '';
      throw new McpError(ErrorCode.InvalidParams, `Tool ${request.params.name} not found${hint}`);
    }
    return callTool(tool, profile, request.params.arguments ?? {}, policy);
  });

  mcp.registerResource(
    'staged-operation',
    new ResourceTemplate(STAGED_URI, {
      // The newest operations the token may see, so that a host can offer them to attach.
      list: async () => {
        const answer = await send(
          profile,
          { method: 'GET', path: `${pathOf('staged_operations.list')}?limit=${RESOURCE_LIST_LIMIT}` },
          policy,
        );
        const items =
          answer.status === 200
            ? ((
                dataOf(answer) as {
                  items?: Array<{ staged_operation_id: string; kind: string; status: string }>;
                }
              ).items ?? [])
            : [];
        return {
          resources: items.map((i) => ({
            uri: `bookstage://staged-operations/${i.staged_operation_id}`,
            name: i.staged_operation_id,
            title: `${i.kind} ${i.status}`,
            mimeType: 'application/json',
          })),
        };
      },
    }),
    {
      title: 'Staged operation',
      description: `One staged operation as JSON (GET ${routeOf('staged_operations.show').path}): its plan, status, history and result.`,
      mimeType: 'application/json',
    },
    async (uri, variables) => {
      const id = String(variables.id);
      let answer;
      try {
        answer = await send(profile, { method: 'GET', path: pathOf('staged_operations.show', { id }) }, policy);
      } catch (err) {
        if (err instanceof NetworkError)
          throw new McpError(ErrorCode.InternalError, `the bookstage API did not answer: ${err.message}`);
        throw err;
      }
      const env = answer.envelope;
      if (answer.status !== 200 || !env?.ok) {
        const error = errorOf(answer);
        const code =
          answer.status === 404
            ? RESOURCE_NOT_FOUND
            : error?.status === 400
              ? ErrorCode.InvalidParams
              : ErrorCode.InternalError;
        throw new McpError(code, error ? `${error.code}: ${error.message}` : `HTTP ${answer.status}`, {
          code: error?.code,
          request_id: env?.request_id,
        });
      }
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(env.data) }] };
    },
  );
  return mcp;
}
