// Each operation's path in the route table (shared/contract/route-paths.ts,
// OpenAPI form `{param}`), by operation. The page may not import the table itself (it
// imports shared/contract only as types), so the build writes it as
// dist/web/route-paths.js (scripts/copy-web-assets.mjs); this file is its type.
// docs/guide/review-page.md "How the page finds the API's paths".
export declare const ROUTE_PATHS: Readonly<Record<string, string>>;
