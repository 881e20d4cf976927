#!/usr/bin/env bash
# Smoke test of the local S3 stack (scripts/s3.sh) with curl's own SigV4 signing:
#   both servers: PUT, GET (same bytes), `If-None-Match: *` -> 412 on an existing key and
#                 200 on a new one, and the failed conditional PUT leaves the object intact;
#   s3rver only:  a wrong secret -> 403 SignatureDoesNotMatch while the right one passes,
#                 unsigned -> 403, a body not matching x-amz-content-sha256 -> 400, and of
#                 8 racing conditional PUTs exactly one wins. (moto checks no signatures and
#                 its conditional PUT is not atomic under concurrency: not asserted there.)
#
#   env=$(scripts/s3.sh start DIR) && eval "$env" && bash tests/stack/s3_smoke.sh
#
# Reads HOGLAKE_TEST_{MOTO_ENDPOINT,S3RVER_ENDPOINT,S3_ACCESS_KEY,S3_SECRET_KEY,S3_BUCKET,
# S3_REGION}. Exits non-zero if anything fails.
set -euo pipefail

for v in HOGLAKE_TEST_MOTO_ENDPOINT HOGLAKE_TEST_S3RVER_ENDPOINT HOGLAKE_TEST_S3_ACCESS_KEY \
  HOGLAKE_TEST_S3_SECRET_KEY HOGLAKE_TEST_S3_BUCKET HOGLAKE_TEST_S3_REGION; do
  if [ -z "${!v:-}" ]; then
    echo "s3_smoke: $v is not set; start the stack first: env=\$(scripts/s3.sh start DIR) && eval \"\$env\"" >&2
    exit 2
  fi
done
curl --help all 2>/dev/null | grep -q -- '--aws-sigv4' || { echo "s3_smoke: this curl has no --aws-sigv4" >&2; exit 2; }

access_key=$HOGLAKE_TEST_S3_ACCESS_KEY
secret_key=$HOGLAKE_TEST_S3_SECRET_KEY
bucket=$HOGLAKE_TEST_S3_BUCKET
region=$HOGLAKE_TEST_S3_REGION
empty_sha256=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run=smoke/$(date +%s)-$$ # fresh keys, so the test can run again against the same servers

passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   - $1"; }
not_ok() {
  failed=$((failed + 1))
  echo "FAIL - $1"
  # Show S3's XML error, never an object's bytes.
  if [ "$(head -c 1 "$tmp/resp")" = '<' ]; then head -c 600 "$tmp/resp" | sed 's/^/       /'; echo; fi
}

# req ENDPOINT SECRET METHOD KEY BODY_FILE|"" [curl args...]
# Signs with SECRET; sets $code (000 when no HTTP answer); the response body is in $tmp/resp.
req() {
  local endpoint=$1 secret=$2 method=$3 key=$4 body=$5 hash=$empty_sha256
  shift 5
  local args=()
  if [ -n "$body" ]; then
    hash=$(sha256sum "$body" | cut -d' ' -f1)
    args+=(--data-binary "@$body" -H 'Content-Type: application/octet-stream')
  fi
  : >"$tmp/resp"
  code=$(curl -s --max-time 30 -o "$tmp/resp" -w '%{http_code}' -X "$method" \
    --aws-sigv4 "aws:amz:$region:s3" --user "$access_key:$secret" \
    -H "x-amz-content-sha256: $hash" "${args[@]}" "$@" "$endpoint/$bucket/$key") || code=000
}

# expect WHAT WANTED_CODE [TEXT_IN_BODY]
expect() {
  local what=$1 want=$2 text=${3:-}
  if [ "$code" != "$want" ]; then
    if [ "$code" = 000 ]; then
      not_ok "$what: wanted HTTP $want, got no HTTP answer"
    else
      not_ok "$what: wanted HTTP $want, got $code"
    fi
  elif [ -n "$text" ] && ! grep -qF -- "$text" "$tmp/resp"; then
    not_ok "$what: HTTP $code but the body lacks '$text'"
  else
    ok "$what ($code)"
  fi
}

# Binary payloads: random bytes, plus NULs and a newline-free tail.
head -c 100000 /dev/urandom >"$tmp/a.bin"
printf 'x\0y\0z' >>"$tmp/a.bin"
head -c 4096 /dev/urandom >"$tmp/b.bin"

for server in moto s3rver; do
  if [ "$server" = moto ]; then ep=$HOGLAKE_TEST_MOTO_ENDPOINT; else ep=$HOGLAKE_TEST_S3RVER_ENDPOINT; fi
  key=$run/$server/object.bin

  req "$ep" "$secret_key" PUT "$key" "$tmp/a.bin"
  expect "$server: PUT $key" 200

  req "$ep" "$secret_key" GET "$key" ""
  if [ "$code" = 200 ] && cmp -s "$tmp/resp" "$tmp/a.bin"; then
    ok "$server: GET returns the same $(stat -c %s "$tmp/a.bin") bytes"
  else
    not_ok "$server: GET $key: HTTP $code, $(stat -c %s "$tmp/resp") bytes, expected the $(stat -c %s "$tmp/a.bin") bytes written"
  fi

  req "$ep" "$secret_key" PUT "$key" "$tmp/b.bin" -H 'If-None-Match: *'
  expect "$server: PUT If-None-Match:* on an existing key" 412 PreconditionFailed

  req "$ep" "$secret_key" GET "$key" ""
  if [ "$code" = 200 ] && cmp -s "$tmp/resp" "$tmp/a.bin"; then
    ok "$server: the refused conditional PUT left the object unchanged"
  else
    not_ok "$server: after the refused conditional PUT, GET gave HTTP $code and other bytes"
  fi

  req "$ep" "$secret_key" PUT "$run/$server/new.bin" "$tmp/b.bin" -H 'If-None-Match: *'
  expect "$server: PUT If-None-Match:* on a new key" 200
done

ep=$HOGLAKE_TEST_S3RVER_ENDPOINT

req "$ep" "$secret_key-wrong" PUT "$run/s3rver/signed.bin" "$tmp/b.bin"
expect "s3rver: PUT signed with a wrong secret is refused" 403 SignatureDoesNotMatch
req "$ep" "$secret_key-wrong" GET "$run/s3rver/object.bin" ""
expect "s3rver: GET signed with a wrong secret is refused" 403 SignatureDoesNotMatch
req "$ep" "$secret_key" PUT "$run/s3rver/signed.bin" "$tmp/b.bin"
expect "s3rver: the same PUT signed with the right secret is accepted" 200

: >"$tmp/resp"
code=$(curl -s --max-time 30 -o "$tmp/resp" -w '%{http_code}' "$ep/$bucket/$run/s3rver/object.bin") || code=000
expect "s3rver: an unsigned GET is refused" 403 AccessDenied

# Signed, but the declared payload hash is of other bytes.
: >"$tmp/resp"
code=$(curl -s --max-time 30 -o "$tmp/resp" -w '%{http_code}' -X PUT \
  --aws-sigv4 "aws:amz:$region:s3" --user "$access_key:$secret_key" \
  -H "x-amz-content-sha256: $(sha256sum "$tmp/a.bin" | cut -d' ' -f1)" \
  -H 'Content-Type: application/octet-stream' --data-binary "@$tmp/b.bin" \
  "$ep/$bucket/$run/s3rver/hash-mismatch.bin") || code=000
expect "s3rver: a body not matching x-amz-content-sha256 is refused" 400 XAmzContentSHA256Mismatch
req "$ep" "$secret_key" GET "$run/s3rver/hash-mismatch.bin" ""
expect "s3rver: ... and nothing was stored" 404 NoSuchKey

# Racing conditional PUTs on one new key: the per-key lock lets exactly one win.
for i in 1 2 3 4 5 6 7 8; do
  curl -s --max-time 30 -o /dev/null -w '%{http_code}\n' -X PUT \
    --aws-sigv4 "aws:amz:$region:s3" --user "$access_key:$secret_key" \
    -H "x-amz-content-sha256: $(sha256sum "$tmp/a.bin" | cut -d' ' -f1)" \
    -H 'Content-Type: application/octet-stream' -H 'If-None-Match: *' \
    --data-binary "@$tmp/a.bin" "$ep/$bucket/$run/s3rver/race.bin" >"$tmp/race.$i" || echo 000 >"$tmp/race.$i" &
done
wait
won=$(cat "$tmp"/race.* | grep -c '^200$' || true)
lost=$(cat "$tmp"/race.* | grep -c '^412$' || true)
: >"$tmp/resp"
if [ "$won" = 1 ] && [ "$lost" = 7 ]; then
  ok "s3rver: 8 racing If-None-Match:* PUTs: 1 won, 7 got 412"
else
  not_ok "s3rver: 8 racing If-None-Match:* PUTs: $won won, $lost got 412 (codes: $(cat "$tmp"/race.* | tr '\n' ' '))"
fi

echo "s3_smoke: $passed passed, $failed failed"
[ "$failed" = 0 ]
