// One lint setup for every workspace (after create-t3-turbo): typescript-eslint with type
// information from each package's own tsconfig. Run it with `npm run lint` (also part of `npm test`).
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  {
    ignores: [
      '**/node_modules/',
      '**/dist/',
      '**/generated/',
      '**/.astro/',
      '**/.turbo/',
      '**/test-output/',
      '**/coverage/',
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['*.config.ts', '*.config.js'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Unused names are also caught by tsc (noUnusedLocals/Parameters); `_name` marks one kept on purpose.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      // House rules (STYLE.md): no casting types away.
      '@typescript-eslint/ban-ts-comment': [
        'error',
        { 'ts-ignore': true, 'ts-expect-error': 'allow-with-description' },
      ],
      // Fastify plugins and interface implementations are async without awaiting anything.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Tests read untyped JSON (`await res.json()`) on purpose and assert on it.
    files: ['**/*.test.ts', '**/test/**/*.ts', 'tests/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // Functions fit on a screen: one over 100 lines is split into named steps (tests and the runner's
    // test-support are exempt).
    files: [
      'apps/runner/src/**/*.ts',
      'apps/api/src/**/*.ts',
      'packages/results-db/src/**/*.ts',
      'packages/scenarios/src/**/*.ts',
      'packages/contracts/src/**/*.ts',
      'packages/answers/src/**/*.ts',
      'packages/stats/src/**/*.ts',
      'packages/env/src/**/*.ts',
      'apps/site/src/**/*.ts',
      'scripts/**/*.ts',
      'tooling/*/src/**/*.ts',
      'apps/*/bench/**/*.ts',
      'tests/**/*.ts',
    ],
    ignores: ['**/*.test.ts', 'apps/runner/src/test-support/**'],
    rules: { 'max-lines-per-function': ['error', { max: 100, skipBlankLines: true, skipComments: true }] },
  },
  {
    // Engines own every engine difference: an engine's name is compared only in the runner's
    // engines/ and in contracts' ENGINE_FACTS; everywhere else a fact of ENGINE_FACTS or a driver's
    // capability says what differs.
    files: ['apps/*/src/**/*.ts', 'packages/*/src/**/*.ts', 'scripts/**/*.ts'],
    ignores: ['**/*.test.ts', 'apps/runner/src/engines/**', 'packages/contracts/src/engines.ts', '**/test-support/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...[
          'BinaryExpression > Literal',
          'SwitchCase > Literal.test',
          "CallExpression[callee.property.name='includes'] > Literal.arguments",
        ].map((parent) => ({
          selector: `${parent}[value=/^(postgresql|mysql|mariadb)$/]`,
          message:
            'an engine name compared outside engines/: use a fact of ENGINE_FACTS (contracts/src/engines.ts) or a capability of the driver',
        })),
      ],
    },
  },
  {
    // Only the runner's engines/ talk to a server under test with a driver.
    files: ['apps/runner/src/**/*.ts'],
    ignores: ['**/*.test.ts', 'apps/runner/src/engines/**', 'apps/runner/src/test-support/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        ...['pg', 'mysql2', 'mysql2/promise'].map((name) => ({
          name,
          message: 'database drivers are imported only in apps/runner/src/engines/<engine>/',
        })),
      ],
    },
  },
  {
    // Plain JavaScript (bin stubs, generators, Astro's config): no type information.
    files: ['**/*.{js,mjs,cjs}'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: globals.node },
  },
);
