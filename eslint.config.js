// Lint run by `npm test` (after the type checks): the recommended rules of ESLint and typescript-eslint (syntax
// only, without type information, so it stays quick) and React's rules of hooks in the renderer. A name that
// starts with `_` is unused on purpose (an ignored argument, a member left out of a rest).
import js from '@eslint/js';
import pluginQuery from '@tanstack/eslint-plugin-query';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** The name `node` reads, when it is the rest parameter of a function around it: `(...args) => call(...args)`
 *  passes on the arguments of one call, which already fit on the stack once. */
function isRestParameter(context, node) {
  if (node.type !== 'Identifier') return false;
  for (let scope = context.sourceCode.getScope(node); scope !== null; scope = scope.upper) {
    const variable = scope.set.get(node.name);
    if (variable !== undefined) return variable.defs.some((def) => def.type === 'Parameter' && def.name.parent?.type === 'RestElement');
  }
  return false;
}

// Every item of a list spread into a call, or handed to `fn.apply(this, list)`, is one argument on the stack:
// past ~120,000 (one step's attempts, a session's episodes, a batch's calls) the call throws "Maximum call
// stack size exceeded". Use appendAll, largest or smallest (src-shared/arrays.ts), a loop, or name the
// arguments. Allowed: a function's own rest parameter passed on (it was one call's arguments already).
const noSpreadArguments = {
  meta: { type: 'problem', messages: { spread: 'a spread into a call passes every item as an argument and overflows the stack on a long list: use appendAll/largest/smallest (src-shared/arrays.ts), a loop, or named arguments' } },
  create(context) {
    const check = (node) => {
      if (!isRestParameter(context, node)) context.report({ node, messageId: 'spread' });
    };
    const isApply = (callee) => callee.type === 'MemberExpression' && !callee.computed && callee.property.name === 'apply';
    return {
      'CallExpression > SpreadElement, NewExpression > SpreadElement'(node) {
        if (node.parent.arguments.includes(node)) check(node.argument);
      },
      CallExpression(node) {
        const list = isApply(node.callee) && node.arguments.length === 2 ? node.arguments[1] : null;
        if (list !== null && list.type !== 'ArrayExpression') check(list);
      },
    };
  },
};

export default tseslint.config(
  { ignores: ['out/', 'node_modules/', 'bench-data/', 'resources/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
  {
    files: ['src-main/**/*.ts', 'src-shared/**/*.ts', 'src-renderer/**/*.{ts,tsx}'],
    plugins: { walscope: { rules: { 'no-spread-arguments': noSpreadArguments } } },
    rules: { 'walscope/no-spread-arguments': 'error' },
  },
  {
    // The plain JavaScript files are Node scripts (the launcher, the build, the Electron fetch).
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['src-renderer/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks, '@tanstack/query': pluginQuery },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
      ...pluginQuery.configs['flat/recommended'][0].rules,
      // Each query's key and function defined once, beside each other (src-renderer/queries.ts).
      '@tanstack/query/prefer-query-options': 'error',
      // The renderer reaches the service only through queries.ts: its reads as queryOptions, its writes as
      // mutation options, each refreshing what it changed.
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/api/api.js'], message: 'use the reads and writes of src-renderer/queries.ts' }] }],
    },
  },
  {
    files: ['src-renderer/queries.ts', 'src-renderer/api/**'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    // Short functions (TIGER_STYLE): a function that outgrows a screen is split by what it does.
    files: ['src-main/**/*.ts', 'src-shared/**/*.ts', 'src-renderer/**/*.{ts,tsx}'],
    rules: { 'max-lines-per-function': ['error', { max: 60, skipBlankLines: true, skipComments: true }] },
  },
);
