// `npm test` lints before it tests (package.json "test": … npm run -s lint …),
// and the lint fails on the two rules this project adds to typescript-eslint's
// type-checked set. Run through ESLint's Node API with the project's own
// config, on small snippets linted as if they were this file.
import { expect } from 'chai';
import { ESLint } from 'eslint';
import * as prettier from 'prettier';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// dist/test/unit → the project root; the snippets take the path of this test's source.
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const probePath = join(root, 'test', 'unit', 'lint.test.ts');

async function lint(code: string): Promise<{ ruleId: string | null; severity: number }[]> {
  const eslint = new ESLint({ cwd: root });
  const [result] = await eslint.lintText(code, { filePath: probePath });
  return (result?.messages ?? []).map(({ ruleId, severity }) => ({ ruleId, severity }));
}

describe('lint (eslint.config.js)', function () {
  // Type-aware linting builds a TypeScript program for the project first.
  this.timeout(120_000);

  it('passes a clean snippet', async () => {
    expect(await lint('export const next = (n: number): number => n + 1;\n')).to.deep.equal([]);
  });

  it('fails a promise nobody awaits (no-floating-promises, an error)', async () => {
    const code = [
      'async function save(): Promise<void> { await Promise.resolve(); }',
      'export function handle(): void {',
      '  save();',
      '}',
      '',
    ].join('\n');
    expect(await lint(code)).to.deep.equal([{ ruleId: '@typescript-eslint/no-floating-promises', severity: 2 }]);
  });

  it('fails a switch that forgets a member of a union (switch-exhaustiveness-check, an error)', async () => {
    const code = [
      "type Outcome = 'staged' | 'noop' | 'blocked';",
      'export function status(outcome: Outcome): number {',
      '  switch (outcome) {',
      "    case 'staged': return 201;",
      "    case 'noop': return 200;",
      '  }',
      '  return 0;',
      '}',
      '',
    ].join('\n');
    expect(await lint(code)).to.deep.equal([{ ruleId: '@typescript-eslint/switch-exhaustiveness-check', severity: 2 }]);
  });

  it('is run by `npm test` before the tests, with no warnings allowed', () => {
    const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(scripts.lint).to.match(/\beslint --max-warnings 0 \. && prettier --check --log-level warn \.$/);
    const steps = (scripts.test ?? '').split('&&').map((step) => step.trim());
    const linted = steps.indexOf('npm run -s lint');
    const tested = steps.findIndex((step) => step.includes('dist/scripts/run-tests.js'));
    expect(linted, scripts.test).to.be.at.least(0);
    expect(tested, scripts.test).to.be.greaterThan(linted);
  });

  it('fails code that Prettier would format otherwise, with the project settings (.prettierrc.json)', async () => {
    const options = { ...(await prettier.resolveConfig(probePath)), filepath: probePath };
    expect(options.printWidth).to.equal(120);
    expect(await prettier.check('export const next = (n: number): number => n + 1;\n', options)).to.equal(true);
    expect(await prettier.check('export const next = (n:number):number=>n+1\n', options)).to.equal(false);
    const long = `export const words = [${Array.from({ length: 20 }, (_, i) => `'word${i}'`).join(', ')}];\n`;
    expect(await prettier.check(long, options)).to.equal(false);
  });
});
