# shellcheck shell=bash disable=SC2034
# (SC2034: the settings below are read by the scripts that source this file.)
# Sourced by every script in infra/: settings from the environment, --dry-run, messages.
#
# Settings (environment variables; only PROJECT_ID has no default):
#   PROJECT_ID          Google Cloud project id (required)
#   REGION              Cloud Run, Artifact Registry and bucket region   [europe-west1]
#   SERVICE             Cloud Run service name                          [bert-qa]
#   BUCKET              Cloud Storage bucket for artifacts and corpora  [$PROJECT_ID-bert-qa]
#   REPOSITORY          Artifact Registry Docker repository             [bert-qa]
#   FIRESTORE_LOCATION  Firestore database location                     [$REGION]
#   FIRESTORE_DATABASE  Firestore database id                           [(default)]
#   PASSAGES_COLLECTION / ANSWERS_COLLECTION                            [passages / answers]
#   RUNTIME_SA_NAME     runtime service account (the function)          [qa-runtime]
#   INGEST_SA_NAME      ingestion service account (infra/ingest_job.sh) [qa-ingest]
#   BUILD_SA_NAME       build service account (Cloud Build, Vertex AI)  [qa-build]
#   INDEX               retrieval index of questions asked alone: empty for the store's own
#                       (Firestore's term documents), lance for a Lance table on Cloud Storage, stored
#                       for the store's own with each passage's embedding stored beside it (stored
#                       cosines: the sentence encoder in the images, no table) [empty]
#   QA_INDEX_URI        where that table is; given, it implies INDEX=lance  [gs://$BUCKET/index/$SERVICE]
#   QA_INDEX_REFRESH_S  with the index: how often an instance looks for new rows (seconds) [the function's 10]
#
# With --dry-run every gcloud (and curl) command is printed on stdout, one per
# line and shell-quoted, instead of being run; messages go to stderr.

DRY_RUN=0
INFRA_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(dirname "$INFRA_DIR")

say() { printf '%s\n' "$*" >&2; }
die() { printf '%s: error: %s\n' "$(basename "$0")" "$*" >&2; exit 1; }
usage_error() { printf '%s: %s (see --help)\n' "$(basename "$0")" "$*" >&2; exit 2; }

# common_option OPT: the options every script takes besides its own: --dry-run and -h/--help (the
# script's header comment); any other is a usage error.
common_option() {
  case $1 in
    --dry-run) DRY_RUN=1 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) usage_error "unknown option $1" ;;
  esac
}

# need_value "$@" (in an option loop, at a valued option given as `--opt VALUE`): a usage error when
# the option is the last argument, so that its value is missing.
need_value() {
  (( $# >= 2 )) || usage_error "$1 needs a value"
}

# require NAME "what it is": fail with a clear message when the variable is empty.
require() {
  local name=$1 what=$2
  if [[ -z "${!name:-}" ]]; then
    die "$name is not set: $what (export $name=... or put it before the command)"
  fi
}

# quote ARG: the argument as a shell word (bare when safe, else single-quoted).
quote() {
  local arg=$1
  if [[ -n "$arg" && "$arg" =~ ^[A-Za-z0-9_./:=,@%+^-]+$ ]]; then
    printf '%s' "$arg"
  else
    printf "'%s'" "${arg//\'/\'\\\'\'}"
  fi
}

# show CMD...: print a command line, quoted so that it can be pasted into a shell.
show() {
  local out="" arg
  for arg in "$@"; do out+="$(quote "$arg") "; done
  printf '%s\n' "${out% }"
}

# run CMD...: run a command, or print it under --dry-run.
run() {
  if (( DRY_RUN )); then show "$@"; else "$@"; fi
}

# gc ARGS...: a gcloud command on $PROJECT_ID, never prompting.
gc() { run gcloud "$@" --project="$PROJECT_ID" --quiet; }

# exists ARGS...: true if a gcloud describe succeeds. Under --dry-run the check is
# printed and reported as "absent", so the dry run shows every create command.
exists() {
  if (( DRY_RUN )); then show gcloud "$@" --project="$PROJECT_ID"; return 1; fi
  gcloud "$@" --project="$PROJECT_ID" >/dev/null 2>&1
}

# load_settings: defaults and derived names; call after option parsing.
load_settings() {
  require PROJECT_ID "the Google Cloud project id to deploy to"
  REGION=${REGION:-europe-west1}
  SERVICE=${SERVICE:-bert-qa}
  BUCKET=${BUCKET:-${PROJECT_ID}-bert-qa}
  REPOSITORY=${REPOSITORY:-bert-qa}
  FIRESTORE_LOCATION=${FIRESTORE_LOCATION:-$REGION}
  FIRESTORE_DATABASE=${FIRESTORE_DATABASE:-(default)}
  PASSAGES_COLLECTION=${PASSAGES_COLLECTION:-passages}
  ANSWERS_COLLECTION=${ANSWERS_COLLECTION:-answers}
  RUNTIME_SA_NAME=${RUNTIME_SA_NAME:-qa-runtime}
  INGEST_SA_NAME=${INGEST_SA_NAME:-qa-ingest}
  BUILD_SA_NAME=${BUILD_SA_NAME:-qa-build}
  RUNTIME_SA="${RUNTIME_SA_NAME}@${PROJECT_ID}.iam.gserviceaccount.com"
  INGEST_SA="${INGEST_SA_NAME}@${PROJECT_ID}.iam.gserviceaccount.com"
  BUILD_SA="${BUILD_SA_NAME}@${PROJECT_ID}.iam.gserviceaccount.com"
  IMAGE_REPO="${REGION}-docker.pkg.dev/${PROJECT_ID}/${REPOSITORY}"
  [[ "$PROJECT_ID" =~ ^[a-z][a-z0-9-]{4,28}[a-z0-9]$ ]] \
    || die "PROJECT_ID '$PROJECT_ID' is not a project id (6-30 lowercase letters, digits, hyphens)"
  [[ "$BUCKET" =~ ^[a-z0-9][a-z0-9._-]{1,61}[a-z0-9]$ ]] \
    || die "BUCKET '$BUCKET' is not a valid bucket name"
}

# The Lance retrieval index (docs/retrieval.md): its objects live under gs://$BUCKET/$INDEX_PREFIX/,
# one table per service. setup.sh grants the runtime account read and the ingestion account write there.
INDEX_PREFIX=index

# load_index_settings: INDEX, QA_INDEX_URI and QA_INDEX_REFRESH_S, checked; after load_settings, in the
# scripts that deploy or run the function (deploy.sh, ingest_job.sh, release.sh).
# INDEX=stored: the images' encoder folder, named to the service and the job (STORED_ENCODER) so that an image
# without it (a plain one) stops at start-up instead of answering without cosines (or ingesting without embeddings).
STORED_ENCODER=/app/encoder
load_index_settings() {
  INDEX=${INDEX:-}
  QA_INDEX_URI=${QA_INDEX_URI:-}
  QA_INDEX_REFRESH_S=${QA_INDEX_REFRESH_S:-}
  [[ -z "$INDEX" || "$INDEX" == lance || "$INDEX" == stored ]] \
    || die "INDEX=$INDEX: empty (the store's own index), lance (a Lance table on Cloud Storage) or stored (the store's own index with each passage's embedding: stored cosines)"
  [[ "$INDEX" != stored || -z "$QA_INDEX_URI" ]] \
    || die "INDEX=stored keeps no table, QA_INDEX_URI=$QA_INDEX_URI names one: unset it, or INDEX=lance"
  if [[ -n "$QA_INDEX_URI" ]]; then
    INDEX=lance
  elif [[ "$INDEX" == lance ]]; then
    QA_INDEX_URI="gs://${BUCKET}/${INDEX_PREFIX}/${SERVICE}"
  fi
  [[ -z "$QA_INDEX_URI" || "$QA_INDEX_URI" =~ ^gs://[a-z0-9][a-z0-9._-]{1,61}[a-z0-9]/[^,[:space:]]+$ ]] \
    || die "QA_INDEX_URI '$QA_INDEX_URI' is not gs://BUCKET/PATH (no commas or spaces): every instance and the ingestion job share it"
  [[ -z "$QA_INDEX_REFRESH_S" || "$QA_INDEX_REFRESH_S" =~ ^[0-9]+([.][0-9]+)?$ ]] \
    || die "QA_INDEX_REFRESH_S=$QA_INDEX_REFRESH_S is not a number of seconds"
}

# load_corpus_settings: CORPUS, checked: empty (passages in Firestore) or image (the build context's corpus/ baked
# into the image, the Dockerfile's runtime-corpus or runtime-lance-corpus target); in deploy.sh and release.sh.
load_corpus_settings() {
  CORPUS=${CORPUS:-}
  [[ -z "$CORPUS" || "$CORPUS" == image ]] \
    || die "CORPUS=$CORPUS: empty (passages in Firestore) or image (corpus/ in the image, docker build --target runtime-corpus)"
}
