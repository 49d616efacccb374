#!/usr/bin/env bash
# Ingest a corpus from Cloud Storage into Firestore with a Cloud Run job of N parallel tasks.
#
#   PROJECT_ID=p infra/ingest_job.sh [--dry-run] [--tasks N] [--parallelism P]
#       [--image IMAGE] [--no-execute] gs://bucket/corpus/ [gs://bucket/more.jsonl ...]
#
# Creates (or updates) the job JOB_NAME (default $SERVICE-ingest) and runs it,
# waiting for the end. Each task runs the serving image's
#   python -m function.ingest <inputs>
# and takes its shard from CLOUD_RUN_TASK_INDEX / CLOUD_RUN_TASK_COUNT, which
# Cloud Run sets: every N-th file of the inputs, or every N-th record of a
# single file. Ingestion is idempotent (document ids come from the input), so a
# failed task is simply retried.
#
# The image defaults to the one the Cloud Run service $SERVICE runs, so passages
# are tokenised by the tokenizer that will read them. The job runs as the
# runtime service account: it needs read on the corpus bucket (setup.sh grants
# it on $BUCKET; grant it on any other bucket) and Firestore write.
# Settings: TASK_TIMEOUT (3600s), MAX_RETRIES (2), JOB_MEMORY (1Gi), JOB_CPU (1);
# others in infra/lib.sh.
set -euo pipefail
# shellcheck source=infra/lib.sh
source "$(dirname "$0")/lib.sh"

TASKS=10 PARALLELISM="" EXECUTE=1 INPUTS=()
while (( $# )); do
  case $1 in
    --dry-run) DRY_RUN=1 ;;
    --tasks) [[ $# -ge 2 ]] || usage_error "--tasks needs a value"; TASKS=$2; shift ;;
    --tasks=*) TASKS=${1#*=} ;;
    --parallelism) [[ $# -ge 2 ]] || usage_error "--parallelism needs a value"; PARALLELISM=$2; shift ;;
    --parallelism=*) PARALLELISM=${1#*=} ;;
    --image) [[ $# -ge 2 ]] || usage_error "--image needs a value"; IMAGE=$2; shift ;;
    --image=*) IMAGE=${1#*=} ;;
    --no-execute) EXECUTE=0 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) usage_error "unknown option $1" ;;
    *) INPUTS+=("$1") ;;
  esac
  shift
done
load_settings

(( ${#INPUTS[@]} )) || usage_error "name the corpus: gs://bucket/prefix/ or gs://bucket/file.json[l]"
for input in "${INPUTS[@]}"; do
  [[ "$input" =~ ^gs://[a-z0-9][a-z0-9._-]{1,61}[a-z0-9](/.*)?$ ]] \
    || die "input '$input' is not a gs:// URI (the job reads the corpus from Cloud Storage)"
  [[ "$input" != *,* ]] || die "input '$input' contains a comma, which gcloud's --args cannot carry"
done
[[ "$TASKS" =~ ^[1-9][0-9]*$ ]] || die "--tasks $TASKS is not a positive integer"
PARALLELISM=${PARALLELISM:-$TASKS}
[[ "$PARALLELISM" =~ ^[1-9][0-9]*$ ]] || die "--parallelism $PARALLELISM is not a positive integer"
JOB_NAME=${JOB_NAME:-${SERVICE}-ingest}
TASK_TIMEOUT=${TASK_TIMEOUT:-3600s}
MAX_RETRIES=${MAX_RETRIES:-2}
JOB_MEMORY=${JOB_MEMORY:-1Gi}
JOB_CPU=${JOB_CPU:-1}

if [[ -z "${IMAGE:-}" ]]; then
  describe=(run services describe "$SERVICE" --region="$REGION"
            --format='value(spec.template.spec.containers[0].image)')
  if (( DRY_RUN )); then
    show gcloud "${describe[@]}" --project="$PROJECT_ID"
    IMAGE="<the image of service $SERVICE>"
  else
    IMAGE=$(gcloud "${describe[@]}" --project="$PROJECT_ID") \
      || die "cannot read the image of Cloud Run service $SERVICE: deploy it first or pass --image"
  fi
fi

ARGS="-m,function.ingest"
for input in "${INPUTS[@]}"; do ARGS+=",$input"; done
ENV_VARS="QA_STORE=firestore,QA_FIRESTORE_DATABASE=${FIRESTORE_DATABASE}"
ENV_VARS+=",QA_PASSAGES_COLLECTION=${PASSAGES_COLLECTION},GOOGLE_CLOUD_PROJECT=${PROJECT_ID}"

say "Job $JOB_NAME: $TASKS tasks ($PARALLELISM at a time) ingest ${INPUTS[*]} with $IMAGE"
gc run jobs deploy "$JOB_NAME" --image="$IMAGE" --region="$REGION" \
  --service-account="$RUNTIME_SA" --command=python --args="$ARGS" \
  --tasks="$TASKS" --parallelism="$PARALLELISM" --task-timeout="$TASK_TIMEOUT" \
  --max-retries="$MAX_RETRIES" --memory="$JOB_MEMORY" --cpu="$JOB_CPU" \
  --set-env-vars="$ENV_VARS" --labels=app=bert-qa
if (( EXECUTE )); then
  gc run jobs execute "$JOB_NAME" --region="$REGION" --wait
  say "Done. Each task logged 'wrote N passages'; read them with:"
  say "  gcloud logging read 'resource.type=\"cloud_run_job\" AND resource.labels.job_name=\"$JOB_NAME\"' --project=$PROJECT_ID --limit=50"
fi
