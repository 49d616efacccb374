#!/usr/bin/env bash
# Redeploy with one command: run the release pipeline (cloudbuild.yaml) on Cloud Build.
#
#   PROJECT_ID=p infra/release.sh [--dry-run] [--async]
#
# Uploads the repository (minus infra/gcloudignore) and runs, as the build
# service account: artifact (from the repo, the Cloud Storage cache, or built)
# -> versioned upload -> image build with layer caching -> push to Artifact
# Registry -> Cloud Run deploy of a tagged revision without traffic -> smoke test
# with an identity token -> all traffic to the new revision. A failed smoke test
# fails the build and leaves traffic where it was.
# Settings: ARTIFACT_SOURCE (repo | cache | build; default repo), BUILD_CONFIG
# (build_model/configs/production.toml), MIN_INSTANCES (0), MAX_INSTANCES (10),
# BILLING (request | instance; see infra/deploy.sh), BUILD_TIMEOUT (3600s; a CPU
# build of the artifact needs more), INDEX (empty: the store's own retrieval index;
# lance: the images with the Lance index, the Dockerfile's runtime-lance and
# ingest-lance targets, and the service deployed with QA_INDEX_URI=gs://$BUCKET/index/$SERVICE,
# which infra/ingest_job.sh writes with INDEX=lance; stored: the images with the sentence encoder, the
# runtime-cosines and ingest-cosines targets, the store's own index with each passage's embedding stored
# beside it, which infra/ingest_job.sh stores with INDEX=stored), CORPUS (empty: passages in Firestore; image:
# the corpus ingested into corpus/ beforehand, baked into the image, the Dockerfile's runtime-corpus,
# runtime-lance-corpus or runtime-cosines-corpus target; docs/deploy.md#the-corpus-in-the-image); others in
# infra/lib.sh.
set -euo pipefail
# shellcheck source=infra/lib.sh
source "$(dirname "$0")/lib.sh"

ASYNC=()
while (( $# )); do
  case $1 in
    --async) ASYNC=(--async) ;;
    *) common_option "$1" ;;  # --dry-run, -h/--help; anything else is refused
  esac
  shift
done
load_settings
load_index_settings
load_corpus_settings
ARTIFACT_SOURCE=${ARTIFACT_SOURCE:-repo}
BUILD_CONFIG=${BUILD_CONFIG:-build_model/configs/production.toml}
MIN_INSTANCES=${MIN_INSTANCES:-0}
MAX_INSTANCES=${MAX_INSTANCES:-10}
BUILD_TIMEOUT=${BUILD_TIMEOUT:-3600s}
BILLING=${BILLING:-request}
[[ "$ARTIFACT_SOURCE" =~ ^(repo|cache|build)$ ]] || die "ARTIFACT_SOURCE must be repo, cache or build"
# The pipeline deploys the index where setup.sh's grants are: another QA_INDEX_URI is infra/deploy.sh's.
[[ -z "$QA_INDEX_URI" || "$QA_INDEX_URI" == "gs://${BUCKET}/${INDEX_PREFIX}/${SERVICE}" ]] \
  || die "QA_INDEX_URI=$QA_INDEX_URI: the pipeline deploys gs://${BUCKET}/${INDEX_PREFIX}/${SERVICE} (INDEX=lance); deploy another with infra/deploy.sh"

cd "$REPO_DIR"
if [[ $ARTIFACT_SOURCE == repo && ! -f artifact/manifest.json ]]; then
  die "artifact/manifest.json is missing: build the model first, or ARTIFACT_SOURCE=cache (infra/train_vertex.sh)"
fi
if [[ $CORPUS == image && ! -f corpus/passages.sqlite ]]; then
  die "CORPUS=image: corpus/passages.sqlite is missing: ingest first (QA_STORE=sqlite QA_SQLITE_PATH=corpus/passages.sqlite python -m function.ingest DOCS)"
fi
if [[ $ARTIFACT_SOURCE != repo && ! -f "$BUILD_CONFIG" ]]; then
  die "BUILD_CONFIG $BUILD_CONFIG does not exist"
fi

SUBS="_REGION=${REGION},_SERVICE=${SERVICE},_BUCKET=${BUCKET},_REPOSITORY=${REPOSITORY}"
SUBS+=",_ARTIFACT_SOURCE=${ARTIFACT_SOURCE},_BUILD_CONFIG=${BUILD_CONFIG}"
SUBS+=",_MIN_INSTANCES=${MIN_INSTANCES},_MAX_INSTANCES=${MAX_INSTANCES},_BILLING=${BILLING}"
SUBS+=",_INDEX=${INDEX},_CORPUS=${CORPUS}"
COSINES=""
[[ $INDEX != stored ]] || COSINES=", stored cosines (the sentence encoder in the images)"
if [[ $CORPUS == image ]]; then
  say "Releasing $SERVICE to $PROJECT_ID ($REGION), artifact from $ARTIFACT_SOURCE, the corpus of corpus/ in the image${COSINES}"
else
  say "Releasing $SERVICE to $PROJECT_ID ($REGION), artifact from $ARTIFACT_SOURCE${QA_INDEX_URI:+, retrieval index $QA_INDEX_URI}${COSINES}"
fi
gc builds submit . --region="$REGION" --config=cloudbuild.yaml --substitutions="$SUBS" \
  --ignore-file=infra/gcloudignore --gcs-source-staging-dir="gs://${BUCKET}/source" \
  --service-account="projects/${PROJECT_ID}/serviceAccounts/${BUILD_SA}" \
  --timeout="$BUILD_TIMEOUT" ${ASYNC[@]+"${ASYNC[@]}"}
