import tseslint from 'typescript-eslint';

const NO_TEST_IMPORTS = {
  regex: '(^|/)test/',
  message: 'nothing outside test/ imports from test/: move what both need to local/ or shared/',
};

/** client-node refused but for its types, which are erased. */
const clientNodeTypesOnly = (message) => ({ name: '@kubernetes/client-node', allowTypeImports: true, message });

export default tseslint.config(
  { ignores: ['node_modules/', 'build/', 'coverage/', 'bench/results/'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      complexity: ['error', 12],
      'max-depth': ['error', 3],
      'max-lines': ['error', { max: 300, skipBlankLines: true, skipComments: true }],
      'max-lines-per-function': ['error', { max: 60, skipBlankLines: true, skipComments: true }],
      'max-params': ['error', 4],
      'max-statements': ['error', 25],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    // test/ holds tests and their helpers only: the product, the local tooling
    // (local/) and the scripts never depend on it. The benchmarks and the unit
    // tests may use test/support/, its helpers, and nothing else of test/.
    files: ['**/*.ts'],
    ignores: ['test/**', 'bench/**', '**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [NO_TEST_IMPORTS],
        },
      ],
    },
  },
  {
    files: ['bench/**/*.ts', '**/*.test.ts'],
    ignores: ['test/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)test/(?!support/)',
              message: 'the benchmarks and the unit tests import test/support/ only',
            },
          ],
        },
      ],
    },
  },
  {
    // The function and the janitor load the light client of shared/kube/ only:
    // @kubernetes/client-node is the tests' and the tooling's, commander the
    // CLI's (cli/), never on their cold path; client-node's types are fine (erased).
    files: ['functions/**/*.ts', 'shared/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            clientNodeTypesOnly(
              "the function and the janitor use shared/kube/ (client-node is the tests' and the tooling's)",
            ),
            { name: 'commander', message: "commander is the CLI's (cli/)" },
          ],
          patterns: [NO_TEST_IMPORTS],
        },
      ],
    },
  },
  {
    // The CLI calls the API server through shared/kube/ alone (docs/cli.md).
    files: ['cli/**/*.ts'],
    ignores: ['cli/**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [clientNodeTypesOnly('the CLI calls the API server through shared/kube/')],
          patterns: [NO_TEST_IMPORTS],
        },
      ],
    },
  },
  {
    // `npm start` and the local stack meet a control plane that is starting:
    // their client-node calls go through local/kube.ts, which tries
    // 429 and 503 again.
    files: ['local/**/*.ts', 'scripts/**/*.ts'],
    ignores: ['local/kube.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name='makeApiClient']",
          message: 'use apiClient() or objectApi() of local/kube.ts: they retry 429 and 503',
        },
      ],
    },
  },
  {
    files: ['**/*.test.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    // it.each rows are spread into parameters
    rules: {
      'max-lines-per-function': 'off',
      'max-statements': 'off',
      'max-params': 'off',
      'max-lines': ['error', 500],
    },
  },
);
