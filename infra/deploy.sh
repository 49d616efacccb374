#!/usr/bin/env bash
# Deploy the QA function: a Cloud Run service from the image (default), or a
# Cloud Functions (2nd gen) function from a staged source folder.
#
#   PROJECT_ID=p infra/deploy.sh [--dry-run] [--image IMAGE] [--tag TAG] [--no-traffic]
#   PROJECT_ID=p infra/deploy.sh --promote [--tag TAG]      all traffic to the latest revision
#   PROJECT_ID=p infra/deploy.sh --functions [--dry-run]     gcloud functions deploy --gen2
#
# Recommended settings (docs/deploy.md#recommended-settings-and-why explains each), overridable here:
#   MEMORY=512Mi  CPU=1  CONCURRENCY=8  MIN_INSTANCES=0  MAX_INSTANCES=10
#   (CPU=0.5 or another fraction from 0.08: concurrency 1, cheaper billed alone, slower: docs/cost.md)
#   EXECUTION_ENVIRONMENT=gen1  REQUEST_TIMEOUT=30s  BILLING=request (or instance),
#   startup CPU boost on, no unauthenticated access, the runtime service account.
#   EXTRA_ENV_VARS="QA_CACHE_TTL_S=86400,..." adds function settings (README.md#configuration).
# The retrieval index: INDEX=lance (or QA_INDEX_URI=gs://BUCKET/PATH) sets QA_INDEX_URI, by default
#   gs://$BUCKET/index/$SERVICE, and QA_INDEX_REFRESH_S when given: questions asked alone are searched
#   in that Lance table, which infra/ingest_job.sh writes. The image must hold requirements-lance.txt
#   (the Dockerfile's runtime-lance target: INDEX=lance infra/release.sh builds it); --functions adds
#   it to the staged requirements.txt.
# Stored cosines: INDEX=stored sets QA_INDEX_ENCODER to the image's encoder folder (/app/encoder) without
#   QA_INDEX_URI: the store's own index retrieves and each passage's stored embedding gives the question's
#   cosine to it. The image must hold the encoder (the Dockerfile's runtime-cosines target: INDEX=stored
#   infra/release.sh builds it); a plain image fails its start-up probe instead of serving without cosines.
#   --functions stages encoder/ beside the artifact.
# The corpus in the image: CORPUS=image deploys an image built with the Dockerfile's runtime-corpus (or
#   runtime-lance-corpus) target, which answers from its own SQLite file (and Lance folder): QA_STORE=sqlite,
#   no Firestore setting, no index setting (docs/deploy.md#the-corpus-in-the-image).
# Cloud Run: IMAGE defaults to $REGION-docker.pkg.dev/$PROJECT_ID/$REPOSITORY/$SERVICE:latest.
# Functions: the folder STAGE_DIR (build/function-source) gets main.py, function/,
#   the artifact (ARTIFACT_DIR, default artifact/) and requirements.txt; the function
#   is named FUNCTION_NAME (default $SERVICE-fn).
# Other settings: see infra/lib.sh.
set -euo pipefail
# shellcheck source=infra/lib.sh
source "$(dirname "$0")/lib.sh"

TARGET=run TAG="" NO_TRAFFIC=0 PROMOTE=0
while (( $# )); do
  case $1 in
    --image) need_value "$@"; IMAGE=$2; shift ;;
    --image=*) IMAGE=${1#*=} ;;
    --tag) need_value "$@"; TAG=$2; shift ;;
    --tag=*) TAG=${1#*=} ;;
    --no-traffic) NO_TRAFFIC=1 ;;
    --promote) PROMOTE=1 ;;
    --functions) TARGET=functions ;;
    *) common_option "$1" ;;  # --dry-run, -h/--help; anything else is refused
  esac
  shift
done
load_settings
load_index_settings
load_corpus_settings
if [[ "$CORPUS" == image ]]; then
  [[ -z "$QA_INDEX_URI" ]] \
    || die "CORPUS=image: the image names its own index (runtime-lance-corpus); leave INDEX and QA_INDEX_URI unset"
  [[ "$TARGET" == run ]] || die "CORPUS=image deploys a Cloud Run image; --functions deploys a source folder"
fi

MEMORY=${MEMORY:-512Mi}
CPU=${CPU:-1}
# A fraction of a vCPU (0.08 to 0.999) serves one request at a time: Cloud Run requires concurrency 1 (the
# default then), request-based billing and the first generation environment below 1 vCPU, and at most 1 GiB
# of memory (512 MiB below 0.5). docs/cost.md#today: cheaper for light traffic, slower answers.
FRACTIONAL=0
if [[ "$CPU" =~ ^0?\.[0-9]{1,3}$ ]]; then
  FRACTIONAL=1
  awk -v c="$CPU" 'BEGIN { exit !(c >= 0.08) }' || die "CPU=$CPU: Cloud Run's smallest vCPU is 0.08"
fi
if (( FRACTIONAL )); then CONCURRENCY=${CONCURRENCY:-1}; else CONCURRENCY=${CONCURRENCY:-8}; fi
MIN_INSTANCES=${MIN_INSTANCES:-0}
MAX_INSTANCES=${MAX_INSTANCES:-10}
EXECUTION_ENVIRONMENT=${EXECUTION_ENVIRONMENT:-gen1}
REQUEST_TIMEOUT=${REQUEST_TIMEOUT:-30s}
BILLING=${BILLING:-request}
IMAGE=${IMAGE:-${IMAGE_REPO}/${SERVICE}:latest}
FUNCTION_NAME=${FUNCTION_NAME:-${SERVICE}-fn}
STAGE_DIR=${STAGE_DIR:-$REPO_DIR/build/function-source}
ARTIFACT_DIR=${ARTIFACT_DIR:-$REPO_DIR/artifact}

(( FRACTIONAL )) || [[ "$CPU" =~ ^(1|2|4|6|8)$ ]] \
  || die "CPU=$CPU: use a whole number of vCPUs (1, 2, 4, 6, 8) or a fraction from 0.08 to 0.999"
[[ "$CONCURRENCY" =~ ^[1-9][0-9]*$ ]] || die "CONCURRENCY=$CONCURRENCY is not a positive integer"
[[ "$MIN_INSTANCES" =~ ^[0-9]+$ && "$MAX_INSTANCES" =~ ^[1-9][0-9]*$ ]] \
  || die "MIN_INSTANCES and MAX_INSTANCES must be integers (MAX_INSTANCES >= 1)"
[[ -z "$TAG" || "$TAG" =~ ^[a-z][a-z0-9-]{0,45}$ ]] || die "--tag '$TAG': lowercase letters, digits, hyphens"
[[ "$EXECUTION_ENVIRONMENT" =~ ^gen[12]$ ]] || die "EXECUTION_ENVIRONMENT=$EXECUTION_ENVIRONMENT: gen1 or gen2"
# request: CPU only while requests (and start-up) run, billed per request; instance: CPU
# all the time, billed per instance-second (worth it with MIN_INSTANCES > 0, see
# docs/deploy.md#recommended-settings-and-why, "Minimum instances").
case $BILLING in
  request) THROTTLING=--cpu-throttling ;;
  instance) THROTTLING=--no-cpu-throttling ;;
  *) die "BILLING=$BILLING: request or instance" ;;
esac
if (( FRACTIONAL )); then
  [[ "$CONCURRENCY" == 1 ]] || die "CPU=$CPU: below 1 vCPU Cloud Run serves one request at a time; set CONCURRENCY=1"
  [[ "$BILLING" == request ]] || die "CPU=$CPU: below 1 vCPU Cloud Run bills by request only; set BILLING=request"
  [[ "$EXECUTION_ENVIRONMENT" == gen1 ]] \
    || die "CPU=$CPU: below 1 vCPU Cloud Run runs the first generation only; set EXECUTION_ENVIRONMENT=gen1"
  [[ "$MEMORY" =~ ^[0-9]+(Mi|Gi)$ ]] \
    || die "CPU=$CPU: MEMORY=$MEMORY: give a whole number of Mi or Gi (at most 1Gi below 1 vCPU)"
  case $MEMORY in
    *Mi) MEMORY_MIB=${MEMORY%Mi} ;;
    *Gi) MEMORY_MIB=$(( ${MEMORY%Gi} * 1024 )) ;;
  esac
  LIMIT_MIB=$(awk -v c="$CPU" 'BEGIN { print (c < 0.5) ? 512 : 1024 }')
  (( MEMORY_MIB <= LIMIT_MIB )) || die "CPU=$CPU: MEMORY=$MEMORY is over Cloud Run's ${LIMIT_MIB}Mi for that vCPU"
fi

# The function's settings (README.md#configuration). QA_THREADS is the vCPU
# limit, not "auto": during startup CPU boost the container can see more CPUs
# than it keeps, and a thread pool sized then would oversubscribe afterwards.
# THREADS (gunicorn threads) = concurrency, so every admitted request has a thread.
# QA_INFERENCE_CONCURRENCY: model runs at a time, one per vCPU (QA_INFERENCE_MODE
# adaptive, the default: a lone request runs on every vCPU, concurrent ones on one
# each; docs/benchmarks.md#throughput-under-concurrency); for the same reason as
# QA_THREADS, not detected.
if [[ "$CORPUS" == image ]]; then
  ENV_VARS="QA_STORE=sqlite"  # the image's own QA_SQLITE_PATH (and QA_INDEX_URI) stand
else
  ENV_VARS="QA_STORE=firestore,QA_FIRESTORE_DATABASE=${FIRESTORE_DATABASE}"
  ENV_VARS+=",QA_PASSAGES_COLLECTION=${PASSAGES_COLLECTION},QA_ANSWERS_COLLECTION=${ANSWERS_COLLECTION}"
fi
# A fraction of a vCPU runs the model on one thread (CPU time beyond the fraction is throttled, not shared).
if (( FRACTIONAL )); then MODEL_THREADS=1; else MODEL_THREADS=$CPU; fi
ENV_VARS+=",QA_EAGER_LOAD=1,QA_THREADS=${MODEL_THREADS},QA_INFERENCE_CONCURRENCY=${MODEL_THREADS}"
ENV_VARS+=",THREADS=${CONCURRENCY},WORKERS=1"
# MALLOC_ARENA_MAX=2 (also in the Dockerfile; Cloud Functions builds without it):
# fewer glibc heap arenas for the request threads, ~100 MB less resident memory.
ENV_VARS+=",GOOGLE_CLOUD_PROJECT=${PROJECT_ID},MALLOC_ARENA_MAX=2"
# The Lance retrieval index (infra/lib.sh: INDEX, QA_INDEX_URI); nothing without one.
[[ -z "$QA_INDEX_URI" ]] || ENV_VARS+=",QA_INDEX_URI=${QA_INDEX_URI}"
[[ -z "$QA_INDEX_URI" || -z "$QA_INDEX_REFRESH_S" ]] || ENV_VARS+=",QA_INDEX_REFRESH_S=${QA_INDEX_REFRESH_S}"
# Stored cosines (INDEX=stored): the encoder the image holds (a source folder's own encoder/ for --functions).
if [[ "$INDEX" == stored ]]; then
  if [[ "$TARGET" == functions ]]; then ENV_VARS+=",QA_INDEX_ENCODER=encoder"; else ENV_VARS+=",QA_INDEX_ENCODER=${STORED_ENCODER}"; fi
fi
[[ -z "${EXTRA_ENV_VARS:-}" ]] || ENV_VARS+=",${EXTRA_ENV_VARS}"

# With QA_EAGER_LOAD=1 the port opens before the model is loaded: probe GET /ready
# (503 until it is) so that no request waits on a load, and a revision whose
# artifact is broken never takes traffic. 1 s period, up to 60 s.
STARTUP_PROBE="httpGet.path=/ready,periodSeconds=1,timeoutSeconds=1,failureThreshold=60"

promote() {
  local -a args=(run services update-traffic "$SERVICE" --region="$REGION" --to-latest)
  [[ -z "$TAG" ]] || args+=(--remove-tags="$TAG")
  gc "${args[@]}"
}

deploy_run() {
  local -a args=(run deploy "$SERVICE" --image="$IMAGE" --region="$REGION"
    --service-account="$RUNTIME_SA" --no-allow-unauthenticated --ingress=all
    --memory="$MEMORY" --cpu="$CPU" --concurrency="$CONCURRENCY" --cpu-boost "$THROTTLING"
    --min-instances="$MIN_INSTANCES" --max-instances="$MAX_INSTANCES"
    --execution-environment="$EXECUTION_ENVIRONMENT" --timeout="$REQUEST_TIMEOUT"
    --set-env-vars="$ENV_VARS" --labels=app=bert-qa
    --startup-probe="$STARTUP_PROBE")
  [[ -z "$TAG" ]] || args+=(--tag="$TAG")
  (( ! NO_TRAFFIC )) || args+=(--no-traffic)
  say "Deploying $IMAGE to Cloud Run service $SERVICE ($REGION)${QA_INDEX_URI:+, retrieval index $QA_INDEX_URI}"
  gc "${args[@]}"
  if (( ! DRY_RUN )); then
    say "Service URL: $(gcloud run services describe "$SERVICE" --region="$REGION" \
      --project="$PROJECT_ID" --format='value(status.url)')"
  fi
}

stage_source() {
  # What the function needs and nothing else: the same paths the Dockerfile copies.
  [[ -f "$ARTIFACT_DIR/manifest.json" ]] \
    || die "no artifact at $ARTIFACT_DIR (manifest.json missing): build it or set ARTIFACT_DIR"
  [[ "$STAGE_DIR" != "/" && "$STAGE_DIR" != "$REPO_DIR" ]] || die "STAGE_DIR=$STAGE_DIR is not a scratch folder"
  rm -rf "$STAGE_DIR"
  mkdir -p "$STAGE_DIR"
  cp "$REPO_DIR/main.py" "$REPO_DIR/requirements.txt" "$STAGE_DIR/"
  # With the Lance index the function needs pylance and pyarrow too (requirements-lance.txt).
  [[ -z "$QA_INDEX_URI" ]] || cat "$REPO_DIR/requirements-lance.txt" >> "$STAGE_DIR/requirements.txt"
  (cd "$REPO_DIR" && find function -type f -not -path '*/__pycache__/*' -not -path '*/tests/*' \
    -not -name '*.py[cod]' -exec cp --parents {} "$STAGE_DIR/" \;)
  mkdir -p "$STAGE_DIR/artifact"
  find "$ARTIFACT_DIR" -maxdepth 1 -type f -exec cp {} "$STAGE_DIR/artifact/" \;
  # Stored cosines: the sentence encoder the ingestion stored the passages' embeddings with (the repository's).
  if [[ "$INDEX" == stored ]]; then
    [[ -f "$REPO_DIR/encoder/encoder.json" ]] || die "INDEX=stored: no sentence encoder at $REPO_DIR/encoder"
    mkdir -p "$STAGE_DIR/encoder"
    find "$REPO_DIR/encoder" -maxdepth 1 -type f -exec cp {} "$STAGE_DIR/encoder/" \;
  fi
  say "Staged the function source in $STAGE_DIR ($(du -sh "$STAGE_DIR" | cut -f1))"
}

deploy_functions() {
  stage_source
  say "Deploying $STAGE_DIR as Cloud Functions (2nd gen) function $FUNCTION_NAME ($REGION)"
  gc functions deploy "$FUNCTION_NAME" --gen2 --region="$REGION" --runtime=python311 \
    --source="$STAGE_DIR" --entry-point=answer --trigger-http --no-allow-unauthenticated \
    --run-service-account="$RUNTIME_SA" --memory="$MEMORY" --cpu="$CPU" \
    --concurrency="$CONCURRENCY" --min-instances="$MIN_INSTANCES" \
    --max-instances="$MAX_INSTANCES" --timeout="$REQUEST_TIMEOUT" --ingress-settings=all \
    --set-env-vars="$ENV_VARS"
  # A 2nd gen function runs as a Cloud Run service of the same name; functions
  # deploy has no flag for startup CPU boost, so set it on that service.
  gc run services update "$FUNCTION_NAME" --region="$REGION" --cpu-boost
}

if (( PROMOTE )); then
  promote
elif [[ $TARGET == functions ]]; then
  deploy_functions
else
  deploy_run
fi
