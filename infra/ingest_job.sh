#!/usr/bin/env bash
# Ingest a corpus from Cloud Storage into Firestore with a Cloud Run job of N parallel tasks.
#
#   PROJECT_ID=p infra/ingest_job.sh [--dry-run] [--tasks N] [--parallelism P] [--image IMAGE]
#       [--include GLOB]... [--exclude GLOB]... [--sync] [--force] [--delete DOC_ID]...
#       [--no-execute] gs://bucket/corpus/ [gs://bucket/guide.md gs://bucket/more.jsonl ...]
#
# The corpus: documents (.txt, .md/.markdown, .html/.htm, .pdf; one document per
# file, its id the path under the prefix named, split into passages on paragraph
# and sentence boundaries) and records (SQuAD .json, .jsonl with {"id", "title",
# "text"} per line), under gs:// prefixes (walked recursively) or single objects.
#
# Creates (or updates) the job JOB_NAME (default $SERVICE-ingest) and runs it,
# waiting for the end. Each task runs
#   python -m function.ingest [options] <inputs>
# and takes its shard from CLOUD_RUN_TASK_INDEX / CLOUD_RUN_TASK_COUNT, which
# Cloud Run sets: every N-th file of the inputs, or every N-th document of a
# single file. Documents are the unit of change: an unchanged one is skipped, a
# changed one replaces its passages, so a failed task is simply retried.
#
# Options passed on to python -m function.ingest (values must not hold commas):
#   --include GLOB / --exclude GLOB   only / not the files whose path under the
#                    prefix named matches (repeatable; quote them: '*.md', 'drafts/*')
#   --sync           then delete the stored documents under the inputs that are no
#                    longer there (each task on its own shard: safe with N tasks)
#   --force          rewrite unchanged documents too
#   --delete DOC_ID  delete a document and its passages (repeatable; with no inputs
#                    the job runs 1 task unless --tasks says otherwise)
#
# The image defaults to the ingestion image of the build the Cloud Run service
# $SERVICE runs: its image IMAGE:TAG gives IMAGE-ingest:TAG, which the pipeline
# (cloudbuild.yaml) builds from the Dockerfile's `ingest` target with the same
# code and artifact, so passages are tokenised by the tokenizer that will read
# them, and which adds the document libraries (requirements-ingest.txt) that the
# serving image leaves out. `--image` picks another (the serving image reads
# .json/.jsonl records only). The job runs as the ingestion service account
# (INGEST_SA_NAME, qa-ingest; infra/setup.sh): it needs read on the corpus bucket
# (setup.sh grants it on $BUCKET; grant it on any other bucket) and Firestore write.
#
# With the Lance retrieval index (INDEX=lance, or QA_INDEX_URI=gs://BUCKET/PATH; the
# default is gs://$BUCKET/index/$SERVICE, where setup.sh lets the ingestion account write
# and the runtime account read) the job gets QA_INDEX_URI and writes each passage's terms
# to that table too. Its image must hold requirements-lance.txt: the pipeline's
# $SERVICE-ingest built with INDEX=lance (the Dockerfile's ingest-lance target).
# With stored cosines (INDEX=stored) the job gets QA_INDEX_ENCODER, the image's encoder folder, and stores each
# passage's embedding with it; its image is $SERVICE-ingest built with INDEX=stored (ingest-cosines). A plain
# ingestion image stops with an error naming the variable instead of storing passages without embeddings.
# Settings: TASK_TIMEOUT (3600s), MAX_RETRIES (2), JOB_MEMORY (1Gi), JOB_CPU (1);
# others in infra/lib.sh.
set -euo pipefail
# shellcheck source=infra/lib.sh
source "$(dirname "$0")/lib.sh"

TASKS="" PARALLELISM="" EXECUTE=1 INPUTS=() OPTIONS=() DELETES=0 SYNC=0
while (( $# )); do
  case $1 in
    --tasks) need_value "$@"; TASKS=$2; shift ;;
    --tasks=*) TASKS=${1#*=} ;;
    --parallelism) need_value "$@"; PARALLELISM=$2; shift ;;
    --parallelism=*) PARALLELISM=${1#*=} ;;
    --image) need_value "$@"; IMAGE=$2; shift ;;
    --image=*) IMAGE=${1#*=} ;;
    --include|--exclude|--delete)
      need_value "$@"
      [[ $1 != --delete ]] || DELETES=1
      OPTIONS+=("$1" "$2"); shift ;;
    --include=*|--exclude=*|--delete=*)
      [[ $1 != --delete=* ]] || DELETES=1
      OPTIONS+=("${1%%=*}" "${1#*=}") ;;
    --sync) SYNC=1; OPTIONS+=("$1") ;;
    --force) OPTIONS+=("$1") ;;
    --no-execute) EXECUTE=0 ;;
    --dry-run|-h|--help) common_option "$1" ;;
    -*) usage_error "unknown option $1" ;;
    *) INPUTS+=("$1") ;;
  esac
  shift
done
load_settings
load_index_settings

(( ${#INPUTS[@]} || DELETES )) \
  || usage_error "name the corpus: gs://bucket/prefix/, gs://bucket/doc.pdf or gs://bucket/file.json[l]"
for input in "${INPUTS[@]}"; do
  [[ "$input" =~ ^gs://[a-z0-9][a-z0-9._-]{1,61}[a-z0-9](/.*)?$ ]] \
    || die "input '$input' is not a gs:// URI (the job reads the corpus from Cloud Storage)"
  [[ "$input" != *,* ]] || die "input '$input' contains a comma, which gcloud's --args cannot carry"
done
for option in "${OPTIONS[@]}"; do
  [[ -n "$option" ]] || die "an empty --include, --exclude or --delete value"
  [[ "$option" != *,* ]] || die "'$option' contains a comma, which gcloud's --args cannot carry"
done
(( ! SYNC || ${#INPUTS[@]} )) || usage_error "--sync needs the inputs to sync with"
if (( ${#INPUTS[@]} )); then TASKS=${TASKS:-10}; else TASKS=${TASKS:-1}; fi
[[ "$TASKS" =~ ^[1-9][0-9]*$ ]] || die "--tasks $TASKS is not a positive integer"
PARALLELISM=${PARALLELISM:-$TASKS}
[[ "$PARALLELISM" =~ ^[1-9][0-9]*$ ]] || die "--parallelism $PARALLELISM is not a positive integer"
JOB_NAME=${JOB_NAME:-${SERVICE}-ingest}
TASK_TIMEOUT=${TASK_TIMEOUT:-3600s}
MAX_RETRIES=${MAX_RETRIES:-2}
JOB_MEMORY=${JOB_MEMORY:-1Gi}
JOB_CPU=${JOB_CPU:-1}

# ingest_image IMAGE[:TAG]: the ingestion image of the same build, IMAGE-ingest:TAG.
ingest_image() {
  local image=$1
  [[ "$image" != *@* ]] || return 1  # by digest: the build's tag is unknown
  if [[ "${image##*/}" == *:* ]]; then
    printf '%s-ingest:%s\n' "${image%:*}" "${image##*:}"
  else
    printf '%s-ingest:latest\n' "$image"
  fi
}

if [[ -z "${IMAGE:-}" ]]; then
  describe=(run services describe "$SERVICE" --region="$REGION"
            --format='value(spec.template.spec.containers[0].image)')
  if (( DRY_RUN )); then
    show gcloud "${describe[@]}" --project="$PROJECT_ID"
    IMAGE="<the image of service $SERVICE, IMAGE:TAG as IMAGE-ingest:TAG>"
  else
    served=$(gcloud "${describe[@]}" --project="$PROJECT_ID") \
      || die "cannot read the image of Cloud Run service $SERVICE: deploy it first or pass --image"
    IMAGE=$(ingest_image "$served") \
      || die "service $SERVICE runs $served, by digest: pass --image with its ingestion image"
    gcloud artifacts docker images describe "$IMAGE" --project="$PROJECT_ID" >/dev/null 2>&1 \
      || die "no ingestion image $IMAGE for the service's $served (infra/release.sh builds both): pass --image"
  fi
fi

ARGS="-m,function.ingest"
for arg in "${OPTIONS[@]}" "${INPUTS[@]}"; do ARGS+=",$arg"; done
ENV_VARS="QA_STORE=firestore,QA_FIRESTORE_DATABASE=${FIRESTORE_DATABASE}"
ENV_VARS+=",QA_PASSAGES_COLLECTION=${PASSAGES_COLLECTION},GOOGLE_CLOUD_PROJECT=${PROJECT_ID}"
[[ -z "$QA_INDEX_URI" ]] || ENV_VARS+=",QA_INDEX_URI=${QA_INDEX_URI}"
[[ "$INDEX" != stored ]] || ENV_VARS+=",QA_INDEX_ENCODER=${STORED_ENCODER}"

shown=${ARGS#-m,function.ingest,}
say "Job $JOB_NAME: $TASKS tasks ($PARALLELISM at a time) run function.ingest ${shown//,/ } with $IMAGE"
[[ -z "$QA_INDEX_URI" ]] || say "  and write the retrieval index $QA_INDEX_URI"
[[ "$INDEX" != stored ]] || say "  and store each passage's embedding (stored cosines)"
gc run jobs deploy "$JOB_NAME" --image="$IMAGE" --region="$REGION" \
  --service-account="$INGEST_SA" --command=python --args="$ARGS" \
  --tasks="$TASKS" --parallelism="$PARALLELISM" --task-timeout="$TASK_TIMEOUT" \
  --max-retries="$MAX_RETRIES" --memory="$JOB_MEMORY" --cpu="$JOB_CPU" \
  --set-env-vars="$ENV_VARS" --labels=app=bert-qa
if (( EXECUTE )); then
  gc run jobs execute "$JOB_NAME" --region="$REGION" --wait
  say "Done. Each task logged its totals ('ingest: N documents written (M passages), ...'); read them with:"
  say "  gcloud logging read 'resource.type=\"cloud_run_job\" AND resource.labels.job_name=\"$JOB_NAME\"' --project=$PROJECT_ID --limit=50"
fi
