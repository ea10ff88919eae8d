// The floor of `payctl payout batch`: a minimal Node `http` client posting the same bodies (one JSON
// body a line in FILE) to the same URL with the same headers, CONCURRENCY at a time over a keep-alive
// agent, each with a fresh Idempotency-Key. No journal, no validation, no report: only the requests.
// Usage: BENCH_URL=.../v2/payout BENCH_TOKEN=... node floor-batch.cjs FILE CONCURRENCY
// Prints "<accepted> <other>"; exits 1 unless every answer was 201.
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS on purpose: the cheapest start Node has. */
const http = require('node:http');
const { readFileSync } = require('node:fs');
const { randomUUID } = require('node:crypto');

const [file, concurrency] = process.argv.slice(2);
const url = new URL(process.env.BENCH_URL);
const auth = `Bearer ${process.env.BENCH_TOKEN}`;
const bodies = readFileSync(file, 'utf8').split('\n').filter(Boolean);
const agent = new http.Agent({ keepAlive: true, maxSockets: Number(concurrency) });
let next = 0;
let accepted = 0;
let other = 0;

function post(body) {
  return new Promise((resolve, reject) => {
    const headers = {
      accept: 'application/json',
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      'idempotency-key': randomUUID(),
      authorization: auth,
    };
    const req = http.request(url, { method: 'POST', agent, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function sender() {
  while (next < bodies.length) {
    if ((await post(bodies[next++])) === 201) accepted++;
    else other++;
  }
}

Promise.all(Array.from({ length: Number(concurrency) }, sender)).then(
  () => {
    agent.destroy();
    process.stdout.write(`${accepted} ${other}\n`);
    if (other) process.exitCode = 1;
  },
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
