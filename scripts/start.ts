// `npm start` will run the API server (embedded PostgreSQL, sandbox channels). The server is built by the
// server issue (issue 3); until then this says so and fails, rather than pretending to serve the API.
console.error(
  [
    'The API server is not built yet: it arrives with the server issue (see server/README.md).',
    'Meanwhile:',
    '  npm run mock   the Prism mock of the whole API on http://127.0.0.1:4010 (realistic examples)',
    '  npm run docs   the reference, docs/index.html (works offline)',
  ].join('\n'),
);
process.exit(1);
