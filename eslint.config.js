// ESLint flat config: @eslint/js and typescript-eslint recommended rules on the TypeScript and JavaScript
// of the repository, and eslint-plugin-regexp's rules against super-linear backtracking. Generated files (generated/) are checked by `npm run check:generated`, not linted.
// The TypeScript is linted with its types (the project service reads tsconfig.json), for the promise rules: a
// promise nobody awaits loses its rejection, and one handed to a callback that ignores it (Express) too.
import js from '@eslint/js';
import regexp from 'eslint-plugin-regexp';
import tseslint from 'typescript-eslint';

const nodeGlobals = {
  console: 'readonly',
  process: 'readonly',
  Buffer: 'readonly',
  URL: 'readonly',
  setTimeout: 'readonly',
  clearTimeout: 'readonly',
};

export default tseslint.config(
  { ignores: ['generated/', 'node_modules/', 'data/', 'dist/', 'coverage/', 'docs/*.html'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  {
    // Plain JavaScript has no types to lint with.
    files: ['**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: nodeGlobals },
  },
  {
    // Every regular expression is linear (issue 33, docs/security.md): a pattern that can backtrack
    // super-linearly on a tenant's long text would hold the event loop for every account.
    plugins: { regexp },
    rules: {
      'regexp/no-super-linear-backtracking': 'error',
      'regexp/no-super-linear-move': 'error',
    },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      eqeqeq: ['error', 'always'],
      'no-console': 'off',
    },
  },
);
