// ESLint 9 flat config: typescript-eslint's type-checked recommended rules over
// every TypeScript file of the project, plus two rules that catch the bugs a
// queue-driven service is most prone to: a promise nobody awaits (a job or a
// write that fails silently) and a switch that forgets a member of a union
// (a new Decision kind or job name that falls through unhandled).
// `npm run lint` runs it with --max-warnings 0; `npm test` runs it first.
import eslint from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  // What .gitignore keeps out of the repository: build output, installed and
  // built dependencies, the services' state, and stray .js files beside the
  // TypeScript sources (TypeScript compiles into dist/ only).
  {
    ignores: [
      'dist/**', 'node_modules/**', '.cache/**', '.bookstage/**',
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
);
