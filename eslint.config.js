// ESLint, type-aware (typescript-eslint): what the compiler does not catch — floating promises,
// unsafe `any` flowing through, misused async callbacks. `npm run lint` runs it with the layering rules.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'var/**', 'clients/**/dist/**', 'clients/**/examples/*.mjs', 'web/**/*.js', '**/*.cjs', 'eslint.config.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // Async handlers without an await are how Koa middleware and BullMQ processors are typed.
      '@typescript-eslint/require-await': 'off',
      // knex answers rows as any; the `as Row` on a query is the row's declared shape, which this rule would drop.
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // Tests, benchmarks and chaos scenarios read untyped JSON answers on purpose and use chai's expression assertions.
    files: ['test/**/*.ts', 'bench/**/*.ts', 'chaos/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-expressions': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
);
