#!/usr/bin/env bash
# The deployment's dashboard: log-based metrics, a Cloud Monitoring dashboard and
# alert policies, all from the files in infra/monitoring/ (safe to run again).
#
#   PROJECT_ID=p infra/monitoring.sh [--dry-run] [--enable-alerts | --disable-alerts]
#                                    [--notification-channel CHANNEL]... [--out DIR] [--skip-api]
#
# Log-based metrics (infra/monitoring/metrics/*.json, one LogMetric each) count and
# measure the function's JSON log lines: answer latency by kind (context,
# passage_ids, retrieval), model run, passage fetch and retrieval time, answers by
# cache hit/miss, errors by HTTP status, cold starts, time to ready, model load time
# and load failures. Created when absent, else updated.
# The dashboard (infra/monitoring/dashboard.json) shows Cloud Run's own metrics
# (requests/s, latency p50/p99, CPU, memory, instances, startup latency) beside
# them; one is found by its display name and updated, else created.
# Alert policies (infra/monitoring/policies/*.json): 5xx error rate over 5 minutes
# and p99 request latency over 5 minutes. Created DISABLED; --enable-alerts turns
# them on (--disable-alerts off); without either, a policy that exists keeps its
# state. --notification-channel (repeatable) sends them to a channel
# (projects/P/notificationChannels/ID: gcloud beta monitoring channels list).
# Thresholds: ERROR_RATE_PERCENT [5], P99_LATENCY_MS [2000].
# SERVICE is the Cloud Run service to watch (a Cloud Functions 2nd gen function:
# its name, e.g. SERVICE=bert-qa-fn); DASHBOARD_NAME [QA $SERVICE].
# The filled-in dashboard and policy files go to --out DIR (default: a temporary
# folder, removed at the end; under --dry-run build/monitoring/, to be read).
# --skip-api: do not enable monitoring.googleapis.com (infra/setup.sh enables the APIs).
# Settings: see infra/lib.sh. Check the metrics locally: python -m infra.monitoring.logs LOGFILE.
set -euo pipefail
# shellcheck source=infra/lib.sh
source "$(dirname "$0")/lib.sh"

ALERTS=keep OUT_DIR="" SKIP_API=0
CHANNELS=()
while (( $# )); do
  case $1 in
    --enable-alerts) ALERTS=on ;;
    --disable-alerts) ALERTS=off ;;
    --notification-channel) need_value "$@"; CHANNELS+=("$2"); shift ;;
    --notification-channel=*) CHANNELS+=("${1#*=}") ;;
    --out) need_value "$@"; OUT_DIR=$2; shift ;;
    --out=*) OUT_DIR=${1#*=} ;;
    --skip-api) SKIP_API=1 ;;
    *) common_option "$1" ;;  # --dry-run, -h/--help; anything else is refused
  esac
  shift
done
load_settings

ERROR_RATE_PERCENT=${ERROR_RATE_PERCENT:-5}
P99_LATENCY_MS=${P99_LATENCY_MS:-2000}
DASHBOARD_NAME=${DASHBOARD_NAME:-QA $SERVICE}
MONITORING_DIR="$INFRA_DIR/monitoring"
[[ "$ERROR_RATE_PERCENT" =~ ^([1-9][0-9]?|100)(\.[0-9]+)?$|^0\.[0-9]*[1-9][0-9]*$ ]] \
  || die "ERROR_RATE_PERCENT=$ERROR_RATE_PERCENT: a percentage above 0 and at most 100"
[[ "$P99_LATENCY_MS" =~ ^[1-9][0-9]*$ ]] || die "P99_LATENCY_MS=$P99_LATENCY_MS: a whole number of milliseconds"
for channel in ${CHANNELS[@]+"${CHANNELS[@]}"}; do
  [[ "$channel" =~ ^projects/[^/]+/notificationChannels/[^/]+$ ]] \
    || die "--notification-channel $channel: use projects/PROJECT/notificationChannels/ID"
done
command -v python3 >/dev/null || die "python3 is needed to fill in the dashboard and policy files"
if [[ -z "$OUT_DIR" ]] && (( DRY_RUN )); then
  OUT_DIR="$REPO_DIR/build/monitoring"
elif [[ -z "$OUT_DIR" ]]; then
  OUT_DIR=$(mktemp -d "${TMPDIR:-/tmp}/qa-monitoring.XXXXXX")
  trap 'rm -rf "$OUT_DIR"' EXIT
fi
mkdir -p "$OUT_DIR"
ERROR_RATE_FRACTION=$(python3 -c 'import sys; print(float(sys.argv[1]) / 100)' "$ERROR_RATE_PERCENT")

# render SRC DEST [ARGS...]: the file with this deployment's values (infra/monitoring/render.py).
render() {
  local src=$1 dest=$2
  shift 2
  python3 "$MONITORING_DIR/render.py" "$src" "$dest" --set "SERVICE=$SERVICE" \
    --set "DASHBOARD=$DASHBOARD_NAME" --set "ERROR_RATE_PERCENT=$ERROR_RATE_PERCENT" \
    --set "ERROR_RATE_FRACTION=$ERROR_RATE_FRACTION" --set "P99_LATENCY_MS=$P99_LATENCY_MS" "$@" \
    || die "could not fill in $src"
}

# lookup ARGS...: FOUND= the first line a gcloud list prints (empty when nothing matched).
# Under --dry-run the list is printed and reported empty, so the dry run shows every create.
lookup() {
  FOUND=""
  if (( DRY_RUN )); then show gcloud "$@" --project="$PROJECT_ID"; return 0; fi
  FOUND=$(gcloud "$@" --project="$PROJECT_ID" | sed -n 1p)
}

if (( ! SKIP_API )); then
  say "== API"
  gc services enable monitoring.googleapis.com logging.googleapis.com
fi

say "== Log-based metrics (infra/monitoring/metrics)"
for file in "$MONITORING_DIR"/metrics/*.json; do
  name=$(basename "$file" .json)
  if exists logging metrics describe "$name"; then
    gc logging metrics update "$name" --config-from-file="$file"
  else
    gc logging metrics create "$name" --config-from-file="$file"
  fi
done

say "== Dashboard '$DASHBOARD_NAME' (service $SERVICE)"
render "$MONITORING_DIR/dashboard.json" "$OUT_DIR/dashboard.json"
lookup monitoring dashboards list --filter="displayName=\"$DASHBOARD_NAME\"" --format="value(name)"
dashboard=$FOUND
if [[ -n "$dashboard" ]]; then
  gc monitoring dashboards update "$dashboard" --config-from-file="$OUT_DIR/dashboard.json"
else
  gc monitoring dashboards create --config-from-file="$OUT_DIR/dashboard.json"
fi

say "== Alert policies (error rate > ${ERROR_RATE_PERCENT}%, p99 latency > ${P99_LATENCY_MS} ms; alerts: $ALERTS)"
for file in "$MONITORING_DIR"/policies/*.json; do
  dest="$OUT_DIR/policy-$(basename "$file")"
  render "$file" "$dest"  # for its display name
  display=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["displayName"])' "$dest")
  lookup alpha monitoring policies list --filter="displayName=\"$display\"" --format="value(name)"
  policy=$FOUND
  enabled=false
  case $ALERTS in
    on) enabled=true ;;
    keep) if [[ -n "$policy" ]] && [[ "$(gcloud alpha monitoring policies describe "$policy" \
               --project="$PROJECT_ID" --format="value(enabled)")" == True ]]; then enabled=true; fi ;;
  esac
  channel_args=()
  for channel in ${CHANNELS[@]+"${CHANNELS[@]}"}; do channel_args+=(--channel "$channel"); done
  render "$file" "$dest" --enabled "$enabled" ${channel_args[@]+"${channel_args[@]}"}
  say "   $display: enabled=$enabled"
  if [[ -n "$policy" ]]; then
    gc alpha monitoring policies update "$policy" --policy-from-file="$dest"
  else
    gc alpha monitoring policies create --policy-from-file="$dest"
  fi
done

(( DRY_RUN )) && say "The filled-in dashboard and policy files: $OUT_DIR"
say "Monitoring done: Cloud Console > Monitoring > Dashboards > '$DASHBOARD_NAME'."
