#!/usr/bin/env bash
# What a user would write instead of `payctl payout batch`: `xargs -P N curl`, one curl per payout.
# ARGS_FILE holds, per payout, four NUL-terminated arguments: -H, "Idempotency-Key: <uuid>",
# --data-raw, <body>. Prints one HTTP status a line.
# Usage: xargs-curl-batch.sh ARGS_FILE CONCURRENCY URL HEADER_FILE
set -uo pipefail
xargs -0 -n 4 -P "$2" curl -sS -o /dev/null -w '%{http_code}\n' -H @"$4" "$3" <"$1"
