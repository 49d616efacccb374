#!/usr/bin/env bash
# Build the production model on a GPU: the build stage as a Vertex AI custom job.
#
#   PROJECT_ID=p infra/train_vertex.sh [--dry-run] [--config build_model/configs/production.toml]
#       [--squad DIR] [--skip-image]
#
# Cloud Build has no GPU, and the production recipe (teacher
# bert-large-uncased-whole-word-masking-finetuned-squad, distillation on the full
# SQuAD training set) needs one. This script
#   1. builds and pushes the build-stage image (Dockerfile target `model`) with
#      Cloud Build, tagged with the configuration's key (--skip-image: reuse it);
#   2. with --squad DIR, uploads DIR/$SQUAD_TRAIN and DIR/$SQUAD_DEV (the official
#      train-v1.1.json and dev-v1.1.json) to gs://$BUCKET/squad/, where the job
#      reads them (the build stage reads local files only; the job sees the bucket
#      at /gcs/$BUCKET);
#   3. submits `python -m build_model --config CONFIG` as a Vertex AI custom job
#      on one GPU, writing the artifact (model, tokenizer, manifest, REPORT.md,
#      report.png) through Vertex AI's Cloud Storage mount to
#          gs://$BUCKET/artifacts/config-<key>/
#      where <key> is `infra/artifact_key.sh CONFIG`. cloudbuild.yaml looks for the
#      artifact there (_ARTIFACT_SOURCE=cache), so the next release ships it.
# Settings: VERTEX_REGION ($REGION), MACHINE_TYPE (g2-standard-8),
#   ACCELERATOR_TYPE (NVIDIA_L4), ACCELERATOR_COUNT (1), SQUAD_TRAIN
#   (train-v1.1.json), SQUAD_DEV (dev-v1.1.json); others in infra/lib.sh.
# The job runs as the build service account (write on the bucket, read on the
# repository). The hub model and SQuAD are downloaded by the job itself.
set -euo pipefail
# shellcheck source=infra/lib.sh
source "$(dirname "$0")/lib.sh"

CONFIG=build_model/configs/production.toml BUILD_IMAGE=1 SQUAD=""
while (( $# )); do
  case $1 in
    --squad) need_value "$@"; SQUAD=$2; shift ;;
    --squad=*) SQUAD=${1#*=} ;;
    --config) need_value "$@"; CONFIG=$2; shift ;;
    --config=*) CONFIG=${1#*=} ;;
    --skip-image) BUILD_IMAGE=0 ;;
    *) common_option "$1" ;;  # --dry-run, -h/--help; anything else is refused
  esac
  shift
done
load_settings
VERTEX_REGION=${VERTEX_REGION:-$REGION}
MACHINE_TYPE=${MACHINE_TYPE:-g2-standard-8}
ACCELERATOR_TYPE=${ACCELERATOR_TYPE:-NVIDIA_L4}
ACCELERATOR_COUNT=${ACCELERATOR_COUNT:-1}
SQUAD_TRAIN=${SQUAD_TRAIN:-train-v1.1.json}
SQUAD_DEV=${SQUAD_DEV:-dev-v1.1.json}

cd "$REPO_DIR"
[[ -f "$CONFIG" ]] || die "build configuration $CONFIG does not exist (paths are relative to the repository root)"
KEY=$("$INFRA_DIR/artifact_key.sh" "$CONFIG")
BUILDER_IMAGE="${IMAGE_REPO}/qa-builder:${KEY}"
OUT="gs://${BUCKET}/artifacts/config-${KEY}"
say "Configuration $CONFIG has key $KEY; the artifact goes to $OUT/"
for file in "$SQUAD_TRAIN" "$SQUAD_DEV"; do
  [[ -z "$SQUAD" || -f "$SQUAD/$file" ]] || die "$SQUAD/$file is missing (the SQuAD v1.1 $file)"
done

if [[ -n "$SQUAD" ]]; then
  say "== SQuAD files to gs://${BUCKET}/squad/"
  gc storage cp "$SQUAD/$SQUAD_TRAIN" "$SQUAD/$SQUAD_DEV" "gs://${BUCKET}/squad/"
fi

if (( BUILD_IMAGE )); then
  say "== Build-stage image $BUILDER_IMAGE (Cloud Build)"
  gc builds submit . --region="$REGION" --config=infra/builder.cloudbuild.yaml \
    --substitutions="_IMAGE=${BUILDER_IMAGE}" --ignore-file=infra/gcloudignore \
    --gcs-source-staging-dir="gs://${BUCKET}/source" \
    --service-account="projects/${PROJECT_ID}/serviceAccounts/${BUILD_SA}"
fi

say "== Vertex AI custom job on $ACCELERATOR_COUNT x $ACCELERATOR_TYPE ($MACHINE_TYPE, $VERTEX_REGION)"
# Vertex AI mounts Cloud Storage at /gcs/<bucket>; the build writes manifest.json
# last, so a folder without it is an unfinished build and the pipeline ignores it.
POOL="machine-type=${MACHINE_TYPE},replica-count=1,accelerator-type=${ACCELERATOR_TYPE}"
POOL+=",accelerator-count=${ACCELERATOR_COUNT},container-image-uri=${BUILDER_IMAGE}"
JOB_ARGS="--config,${CONFIG},--set,package.out=/gcs/${BUCKET}/artifacts/config-${KEY},--set,work_dir=/tmp/build"
JOB_ARGS+=",--set,data.train=/gcs/${BUCKET}/squad/${SQUAD_TRAIN},--set,data.dev=/gcs/${BUCKET}/squad/${SQUAD_DEV}"
gc ai custom-jobs create --region="$VERTEX_REGION" --display-name="qa-build-${KEY}" \
  --worker-pool-spec="$POOL" --args="$JOB_ARGS" --service-account="$BUILD_SA" \
  --labels="app=bert-qa,artifact-key=${KEY}"

say "Submitted. Follow it with: gcloud ai custom-jobs list --region=$VERTEX_REGION --project=$PROJECT_ID"
say "When $OUT/manifest.json exists, release it with:"
say "  PROJECT_ID=$PROJECT_ID ARTIFACT_SOURCE=cache BUILD_CONFIG=$CONFIG infra/release.sh"
