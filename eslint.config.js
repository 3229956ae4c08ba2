import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'var/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': ['error', { allow: ['error'] }],
      eqeqeq: ['error', 'always'],
    },
  },
  {
    files: ['scripts/**', 'test/**', '**/*.test.ts', 'runtime/cli.ts', 'runtime/commands/**'],
    rules: { 'no-console': 'off' },
  },
  {
    files: ['runtime/http/page/**/*.js'],
    languageOptions: { globals: { window: 'readonly', document: 'readonly', WebSocket: 'readonly', fetch: 'readonly', location: 'readonly' } },
  },
);
