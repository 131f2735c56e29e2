// One formatter for every workspace: `npm run format` writes, `npm run format:check` (part of
// `npm test`) fails on any file that differs. Scenario folders are data hashed into the scenario
// version, so they are not reformatted (see .prettierignore).
/** @type {import('prettier').Config} */
export default {
  printWidth: 120,
  singleQuote: true,
  trailingComma: 'all',
  plugins: ['prettier-plugin-astro'],
  overrides: [{ files: '*.astro', options: { parser: 'astro' } }],
};
