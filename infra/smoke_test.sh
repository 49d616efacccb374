#!/usr/bin/env bash
# Smoke-test a deployed revision over HTTPS with an identity token; exit 1 if it does not answer.
#
#   PROJECT_ID=p infra/smoke_test.sh [--dry-run] [--tag TAG | --url URL]
#
# GET / must report status ok and (when ARTIFACT_DIR/manifest.json is here, as
# in the pipeline) the artifact_hash of the artifact just built into the image;
# POST / with a question and a context must return an answer that is a span of
# that context and contains SMOKE_EXPECT (default "France"; empty: any answer).
# --tag tests the revision behind a traffic tag (deployed with --no-traffic);
# without it, the service URL. The identity token's audience is the service's
# URL (SMOKE_AUDIENCE overrides it, e.g. with --url). Retries SMOKE_ATTEMPTS times (default 6) while
# the new revision starts. Needs gcloud, curl and python3.
set -euo pipefail
# shellcheck source=infra/lib.sh
source "$(dirname "$0")/lib.sh"

TAG="" URL=""
while (( $# )); do
  case $1 in
    --tag) need_value "$@"; TAG=$2; shift ;;
    --tag=*) TAG=${1#*=} ;;
    --url) need_value "$@"; URL=$2; shift ;;
    --url=*) URL=${1#*=} ;;
    *) common_option "$1" ;;  # --dry-run, -h/--help; anything else is refused
  esac
  shift
done
load_settings
SMOKE_EXPECT=${SMOKE_EXPECT-France}
SMOKE_ATTEMPTS=${SMOKE_ATTEMPTS:-6}
ARTIFACT_DIR=${ARTIFACT_DIR:-$REPO_DIR/artifact}
QUESTION='{"question": "In what country is Normandy located?", "context": "The Normans (Norman: Nourmands; French: Normands; Latin: Normanni) were the people who in the 10th and 11th centuries gave their name to Normandy, a region in France."}'

if (( DRY_RUN )); then
  [[ -n "$URL" ]] || show gcloud run services describe "$SERVICE" --region="$REGION" --format=json --project="$PROJECT_ID"
  show gcloud auth print-identity-token --audiences="${SMOKE_AUDIENCE:-${URL:-<the URL of service $SERVICE>}}"
  URL=${URL:-<the ${TAG:+tag $TAG }URL of service $SERVICE>}
  # shellcheck disable=SC2016  # printed for the reader
  show curl -fsS -H 'Authorization: Bearer $TOKEN' "$URL"
  # shellcheck disable=SC2016
  show curl -fsS -X POST -H 'Authorization: Bearer $TOKEN' -H 'Content-Type: application/json' \
    --data "$QUESTION" "$URL"
  exit 0
fi

for tool in gcloud curl python3; do
  command -v "$tool" >/dev/null || die "$tool is needed for the smoke test"
done

# The token's audience is the service's URL, also when calling a tag's URL.
AUDIENCE=${SMOKE_AUDIENCE:-$URL}
if [[ -z "$URL" ]]; then
  urls=$(gcloud run services describe "$SERVICE" --region="$REGION" --project="$PROJECT_ID" --format=json \
    | python3 -c '
import json, sys
svc, tag = json.load(sys.stdin), sys.argv[1]
tagged = [t.get("url", "") for t in svc["status"].get("traffic", []) if t.get("tag") == tag]
print(svc["status"]["url"], (tagged[0] if tag and tagged else "" if tag else svc["status"]["url"]) or "-")' "$TAG")
  AUDIENCE=${SMOKE_AUDIENCE:-${urls%% *}}
  URL=${urls##* }
  [[ "$URL" != "-" ]] || die "service $SERVICE has no URL${TAG:+ for tag $TAG}"
fi

# A service account (Cloud Build) mints a token for the audience; a user
# account's token has a fixed audience, which Cloud Run also accepts for users.
TOKEN=$(gcloud auth print-identity-token --audiences="$AUDIENCE" 2>/dev/null || gcloud auth print-identity-token)
EXPECTED_HASH=""
if [[ -f "$ARTIFACT_DIR/manifest.json" ]]; then
  EXPECTED_HASH=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["artifact_hash"])' \
    "$ARTIFACT_DIR/manifest.json")
fi

check() {  # check: one attempt; prints what is wrong and returns 1
  local health answer
  health=$(curl -sS --max-time 30 -H "Authorization: Bearer $TOKEN" "$URL") || return 1
  answer=$(curl -sS --max-time 60 -X POST -H "Authorization: Bearer $TOKEN" \
    -H 'Content-Type: application/json' --data "$QUESTION" "$URL") || return 1
  python3 - "$health" "$answer" "$QUESTION" "$EXPECTED_HASH" "$SMOKE_EXPECT" <<'PY'
import json, sys
health_raw, answer_raw, question, expected_hash, expect = sys.argv[1:6]
try:
    health, answer = json.loads(health_raw), json.loads(answer_raw)
except ValueError:
    sys.exit(f"not JSON: {health_raw[:200]!r} / {answer_raw[:200]!r}")
if health.get("status") != "ok":
    sys.exit(f"GET / answered {health_raw[:300]}")
got_hash = health.get("model", {}).get("artifact_hash")
if expected_hash and got_hash != expected_hash:
    sys.exit(f"the revision serves artifact {got_hash}, not the one built ({expected_hash})")
answers = answer.get("answers") or []
if not answers:
    sys.exit(f"POST / answered {answer_raw[:300]}")
best, context = answers[0], json.loads(question)["context"]
if not best["text"] or best["text"] != context[best["start"]:best["end"]]:
    sys.exit(f"the answer {best!r} is not a span of the context")
if expect and expect.lower() not in best["text"].lower():
    sys.exit(f"the answer {best['text']!r} does not contain {expect!r}")
print(f"answer {best['text']!r} (score {best.get('score')}), model {health.get('model')}, "
      f"timings {answer.get('timings_ms')}")
PY
}

for attempt in $(seq 1 "$SMOKE_ATTEMPTS"); do
  if check; then
    say "Smoke test passed: $URL"
    exit 0
  fi
  if (( attempt < SMOKE_ATTEMPTS )); then
    say "attempt $attempt of $SMOKE_ATTEMPTS failed; retrying in $((attempt * 5)) s"
    sleep $((attempt * 5))
  fi
done
die "smoke test failed: $URL did not answer correctly"
