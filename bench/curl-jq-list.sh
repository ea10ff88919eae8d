#!/usr/bin/env bash
# What a user would write instead of `payctl payouts list --all --json`: a curl + jq page loop,
# 100 payouts a page (a Laravel paginator in data) until a short page, each payout a JSON line on stdout.
# Usage: curl-jq-list.sh BASE_URL HEADER_FILE   (HEADER_FILE: curl -H @file, with the bearer token)
set -euo pipefail
page=1
while :; do
  body=$(curl -sS --fail -H @"$2" "$1/payout/list?page=$page&per_page=100")
  mapfile -t records < <(jq -c '.data.data[]' <<<"$body")
  ((${#records[@]})) && printf '%s\n' "${records[@]}"
  ((${#records[@]} < 100)) && break
  page=$((page + 1))
done
