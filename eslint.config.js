// Lint for the whole monorepo. Layering rules say which imports are allowed, with the right import named.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';

const noUpwardImports = (message) => ({
  'no-restricted-imports': [
    'error',
    {
      patterns: [
        { group: ['@loupe/server', '@loupe/web', '**/apps/*'], message },
      ],
    },
  ],
});

export default tseslint.config(
  {
    ignores: ['**/dist/**', '**/node_modules/**', 'data/**', '**/*.d.ts', 'engine/**', 'test-results/**', 'playwright-report/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  {
    // Parts of the annotator benchmark run inside the page through page.evaluate.
    files: ['bench/annotator.mjs'],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
  {
    files: ['packages/**/*.ts'],
    rules: noUpwardImports('packages/* are lower layers: they must not import apps. Move shared code into packages/contracts.'),
  },
  {
    files: ['apps/web/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@loupe/server', '**/apps/server/**'],
              message: 'The web app talks to the server over HTTP only: import shared shapes from @loupe/contracts.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['apps/server/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['@loupe/web', '**/apps/web/**'], message: 'The server never imports the web app; share through @loupe/contracts.' },
          ],
        },
      ],
    },
  },
);
