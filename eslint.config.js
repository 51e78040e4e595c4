// ESLint 9 flat config: typescript-eslint's type-checked recommended rules over
// every TypeScript file of the project, plus two rules that catch the bugs a
// queue-driven service is most prone to: a promise nobody awaits (a job or a
// write that fails silently) and a switch that forgets a member of a union
// (a new Decision kind or job name that falls through unhandled). Then the
// layer rules: which folder may import which, and no import cycles.
// `npm run lint` runs it with --max-warnings 0; `npm test` runs it first.
import eslint from '@eslint/js';
import { defineConfig } from 'eslint/config';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

// Layer rules (docs/design/architecture.md "Layout and import rules"): each zone forbids the
// files under `target` to import anything under `from` except `except`
// (paths relative to `from`). Packages (node_modules) are allowed where a
// zone forbids "everything else".
const LEAF = ['./shared/errors.ts', './shared/warnings.ts', './shared/ids.ts', './node_modules'];
// Each staged kind's request schema (shared/kinds/<kind>/schema.ts): part of the schemas layer.
const KIND_SCHEMAS = [
  './shared/kinds/bank-reconcile/schema.ts',
  './shared/kinds/inbox-duplicates-resolve/schema.ts',
  './shared/kinds/ledger-link-repair/schema.ts',
  './shared/kinds/ledger-reversal/schema.ts',
  './shared/kinds/statement-import/schema.ts',
  './shared/kinds/period-close/schema.ts',
  './shared/kinds/bank-match/schema.ts',
  './shared/kinds/journal-entry/schema.ts',
  './shared/kinds/revert/schema.ts',
  './shared/kinds/approval-policy/schema.ts',
];
// The pure files of a kind that its own schema.ts reads (the statement import's CSV mapping, its parameters and formats).
const KIND_SCHEMA_TYPES = [
  './shared/kinds/statement-import/csv.ts',
  './shared/kinds/statement-import/csv-params.ts',
  './shared/kinds/statement-import/model.ts',
];
const LAYER_ZONES = [
  {
    target: './shared/domain',
    from: './',
    except: ['./shared/domain', './shared/contract', ...LEAF],
    message:
      'shared/domain imports nothing but the domain, shared/contract and the error, warning and id tables (docs/design/architecture.md).',
  },
  {
    target: './shared/schemas',
    from: './',
    except: ['./shared/schemas', './shared/contract', './shared/domain', ...KIND_SCHEMAS, ...LEAF],
    message:
      "shared/schemas imports only shared/contract, shared/domain and the kinds' schema.ts (docs/design/architecture.md).",
  },
  {
    target: './shared/kinds/*/schema.ts',
    from: './',
    except: ['./shared/schemas', './shared/contract', './shared/domain', ...KIND_SCHEMA_TYPES, ...LEAF],
    message:
      'A kind\'s schema.ts is a schema: it imports only shared/schemas, shared/contract and shared/domain (docs/design/architecture.md "Kinds").',
  },
  {
    target: './shared/contract',
    from: ['./shared/storage', './shared/queue', './api', './worker', './cli', './web'],
    message:
      'shared/contract is the wire vocabulary: types and route data from the domain and schemas only (docs/design/architecture.md).',
  },
  {
    // A kind's worker parts (what it loads, its staging job, apply hooks) are worker/kinds/<kind>/: worker code.
    target: './shared/kinds',
    from: './',
    except: ['./shared/kinds', './shared/domain', './shared/contract', './shared/schemas', ...LEAF],
    message:
      'shared/kinds holds each staged kind\'s pure parts (schema, wire module, plan, journal): it imports only the kinds, the domain, schemas, contract and the error, warning and id tables (docs/design/architecture.md "Kinds").',
  },
  {
    target: './shared/queue',
    from: ['./shared/domain', './shared/storage', './api', './worker'],
    message: 'shared/queue states job inputs and answers in contract and schema types (docs/design/architecture.md).',
  },
  {
    target: './shared/storage',
    from: ['./shared/queue', './api', './worker'],
    message: 'shared/storage never imports the queue, the API or the worker (docs/design/architecture.md).',
  },
  {
    // Everything outside shared/storage; the tests of the SQL itself, and bench/store-levers.ts (it measures
    // PostgreSQL's plans on FerretDB's tables), may look inside.
    target: [
      './api',
      './worker',
      './cli',
      './web',
      './scripts',
      './bench/lib',
      './bench/sections',
      './bench/run.ts',
      ...['books', 'contract', 'demo', 'domain', 'metrics', 'queue', 'schemas'].map((dir) => `./shared/${dir}`),
    ],
    from: './shared/storage/ferretdb',
    message:
      'Only shared/storage uses the FerretDB adapter; everything else goes through the store port (docs/design/architecture.md "The store port").',
  },
  { target: './api', from: './worker', message: 'The API never imports the worker (docs/design/architecture.md).' },
  { target: './worker', from: './api', message: 'The worker never imports the API (docs/design/architecture.md).' },
  {
    target: './web',
    from: './',
    except: ['./web', './shared/contract', './node_modules'],
    message: 'The review page imports only shared/contract, and only with `import type` (docs/guide/review-page.md).',
  },
];

export default defineConfig(
  // What .gitignore keeps out of the repository: build output, installed and
  // built dependencies, the services' state, and stray .js files beside the
  // TypeScript sources (TypeScript compiles into dist/ only).
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      '.cache/**',
      '.bookstage/**',
      '{api,worker,shared,cli,test,bench,scripts,web}/**/*.js',
    ],
  },
  eslint.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        // Files outside tsconfig.json (this config, the plain-JS bootstrap
        // scripts) get a default program so they are checked the same way.
        projectService: { allowDefaultProject: ['*.js', '*.mjs', 'scripts/*.mjs', 'scripts/*/*.mjs'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      // `_`-named parameters are required by a signature (Express error
      // handlers take four); rest siblings drop fields from a copy.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
  // Layer rules (docs/design/architecture.md "Layout and import rules"): who may import whom, and no
  // import cycles. eslint-plugin-import-x resolves the `.js` specifiers to the
  // TypeScript sources with eslint-import-resolver-typescript.
  {
    files: ['**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      // no-cycle parses the imported files: only those with these extensions, with typescript-eslint's parser.
      'import-x/extensions': ['.ts', '.js', '.mjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [
        createTypeScriptImportResolver({
          project: ['tsconfig.json', 'web/tsconfig.json'],
          noWarnOnMultipleProjects: true,
        }),
      ],
    },
    rules: {
      // Skips `import type` by design (no option counts it): test/unit/import-cycles.test.ts checks those too.
      'import-x/no-cycle': 'error',
      'import-x/no-restricted-paths': ['error', { zones: LAYER_ZONES }],
    },
  },
  // PostgreSQL is spoken only by the FerretDB adapter (docs/design/architecture.md "The store port").
  {
    files: ['**/*.ts'],
    ignores: ['shared/storage/ferretdb/**', 'test/**', 'bench/store-levers.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'pg',
              message:
                'Only shared/storage/ferretdb/ speaks to PostgreSQL; use the store port (docs/design/architecture.md "The store port").',
            },
          ],
        },
      ],
    },
  },
  // CommonJS scripts that a tool loads with require() (mocha's reporter):
  // no types to check, Node's CommonJS globals.
  {
    files: ['scripts/*.cjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable', process: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
