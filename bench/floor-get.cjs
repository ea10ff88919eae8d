// The floor of `payctl balances --json`: a minimal Node `http.get` of the same URL with the same
// bearer token, the body copied to stdout. CommonJS, no dependencies: as little start-up as Node has.
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS on purpose: the cheapest start Node has. */
const http = require('node:http');

http
  .get(process.env.BENCH_URL, { headers: { accept: 'application/json', authorization: `Bearer ${process.env.BENCH_TOKEN}` } }, (res) => {
    if (res.statusCode !== 200) process.exitCode = 1;
    res.pipe(process.stdout);
  })
  .on('error', (err) => {
    console.error(err);
    process.exitCode = 1;
  });
