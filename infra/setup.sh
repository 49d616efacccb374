#!/usr/bin/env bash
# One-time set-up of a Google Cloud project for the QA function (safe to run again).
#
#   PROJECT_ID=my-project infra/setup.sh [--dry-run] [--skip-rules]
#
# Enables the APIs; creates the Firestore database (native mode) with the TTL
# policy on the answer cache and index exemptions for the large passage fields;
# releases firestore.rules (no client SDK access); creates the bucket, the
# Artifact Registry repository, and three service accounts with the least
# privilege each needs:
#   runtime (the service): Firestore read/write on the database; read-only on the
#     objects under gs://$BUCKET/index/ (the Lance retrieval index, INDEX=lance), by
#     an IAM condition on their names and on the prefix listed. Nothing else.
#   ingest (the ingestion job, infra/ingest_job.sh): Firestore read/write on the
#     database, read on the bucket (the corpus), and read/write/delete of the
#     objects under gs://$BUCKET/index/ (writing the index, cleaning up its old
#     versions). Nothing else.
#   build (Cloud Build, Vertex AI): read/write objects in the bucket, push to the
#     repository, deploy Cloud Run revisions running as the runtime account,
#     call the service for the smoke test, write build logs.
# The index needs nothing created: its objects appear under the prefix when ingestion writes them.
# Settings: see infra/lib.sh (REGION, SERVICE, BUCKET, REPOSITORY, ...).
set -euo pipefail
# shellcheck source=infra/lib.sh
source "$(dirname "$0")/lib.sh"

SKIP_RULES=0
while (( $# )); do
  case $1 in
    --skip-rules) SKIP_RULES=1 ;;
    *) common_option "$1" ;;  # --dry-run, -h/--help; anything else is refused
  esac
  shift
done
load_settings

APIS=(run.googleapis.com cloudbuild.googleapis.com artifactregistry.googleapis.com
      firestore.googleapis.com firebaserules.googleapis.com storage.googleapis.com
      iam.googleapis.com iamcredentials.googleapis.com logging.googleapis.com
      monitoring.googleapis.com aiplatform.googleapis.com cloudfunctions.googleapis.com)
# Fields that are written and read by document id, never queried: exempt them from
# the automatic single-field indexes (index entries for large values cost write
# time and storage, and a timestamp index on a TTL field hot-spots).
PASSAGE_FIELDS=(text token_ids offsets bm25_terms embedding)
# The BM25 index (<passages>_terms, function/retrieval/firestore_terms.py) is read by document id.
TERM_FIELDS=(ids postings)
ANSWER_FIELDS=(payload expires_at)
TTL_FIELD=expires_at

say "== APIs"
gc services enable "${APIS[@]}"

say "== Firestore database $FIRESTORE_DATABASE (native mode, $FIRESTORE_LOCATION)"
if ! exists firestore databases describe --database="$FIRESTORE_DATABASE"; then
  gc firestore databases create --database="$FIRESTORE_DATABASE" --location="$FIRESTORE_LOCATION" \
    --type=firestore-native --delete-protection
fi
say "== TTL policy: $ANSWERS_COLLECTION.$TTL_FIELD (expired cached answers are deleted within a day)"
gc firestore fields ttls update "$TTL_FIELD" --collection-group="$ANSWERS_COLLECTION" \
  --database="$FIRESTORE_DATABASE" --enable-ttl
say "== Index exemptions"
for field in "${PASSAGE_FIELDS[@]}"; do
  gc firestore indexes fields update "$field" --collection-group="$PASSAGES_COLLECTION" \
    --database="$FIRESTORE_DATABASE" --disable-indexes
done
for field in "${TERM_FIELDS[@]}"; do
  gc firestore indexes fields update "$field" --collection-group="${PASSAGES_COLLECTION}_terms" \
    --database="$FIRESTORE_DATABASE" --disable-indexes
done
for field in "${ANSWER_FIELDS[@]}"; do
  gc firestore indexes fields update "$field" --collection-group="$ANSWERS_COLLECTION" \
    --database="$FIRESTORE_DATABASE" --disable-indexes
done

release_rules() {
  # Firestore security rules apply to client SDKs only (the service account goes
  # through IAM); firestore.rules denies them everything. Released through the
  # Firebase Rules API, which is what the console uses.
  local api="https://firebaserules.googleapis.com/v1/projects/${PROJECT_ID}"
  local release="cloud.firestore" rules="$REPO_DIR/firestore.rules" token ruleset payload
  [[ "$FIRESTORE_DATABASE" == "(default)" ]] || release="cloud.firestore/${FIRESTORE_DATABASE}"
  [[ -f "$rules" ]] || die "$rules is missing"
  command -v python3 >/dev/null || die "python3 is needed to send firestore.rules (or use --skip-rules)"
  payload=$(python3 -c 'import json, sys; print(json.dumps({"source": {"files": [
    {"name": "firestore.rules", "content": open(sys.argv[1]).read()}]}}))' "$rules")
  # shellcheck disable=SC2016  # printed for the reader, expanded by their shell
  local auth='Authorization: Bearer $(gcloud auth print-access-token)'
  if (( DRY_RUN )); then
    show curl -fsS -X POST -H "$auth" -H "x-goog-user-project: $PROJECT_ID" \
      -H 'Content-Type: application/json' --data "@firestore.rules as a ruleset" "$api/rulesets"
    show curl -fsS -X PATCH -H "$auth" -H "x-goog-user-project: $PROJECT_ID" \
      -H 'Content-Type: application/json' --data '{"release": {"rulesetName": "<the new ruleset>"}}' \
      "$api/releases/$release"
    return
  fi
  token=$(gcloud auth print-access-token)
  local -a hdr=(-H "Authorization: Bearer $token" -H "x-goog-user-project: $PROJECT_ID"
                -H "Content-Type: application/json")
  ruleset=$(curl -fsS -X POST "${hdr[@]}" --data "$payload" "$api/rulesets" \
    | python3 -c 'import json, sys; print(json.load(sys.stdin)["name"])')
  local name="projects/${PROJECT_ID}/releases/${release}"
  if ! curl -fsS -o /dev/null -X PATCH "${hdr[@]}" "$api/releases/$release" \
       --data "{\"release\": {\"name\": \"$name\", \"rulesetName\": \"$ruleset\"}}"; then
    curl -fsS -o /dev/null -X POST "${hdr[@]}" "$api/releases" \
      --data "{\"name\": \"$name\", \"rulesetName\": \"$ruleset\"}"
  fi
  say "released $ruleset as $release"
}
if (( SKIP_RULES )); then
  say "== Security rules: skipped (--skip-rules)"
else
  say "== Security rules: firestore.rules (deny all client access)"
  release_rules
fi

say "== Bucket gs://$BUCKET"
if ! exists storage buckets describe "gs://$BUCKET"; then
  gc storage buckets create "gs://$BUCKET" --location="$REGION" \
    --uniform-bucket-level-access --public-access-prevention
fi

say "== Artifact Registry repository $REPOSITORY"
if ! exists artifacts repositories describe "$REPOSITORY" --location="$REGION"; then
  gc artifacts repositories create "$REPOSITORY" --location="$REGION" \
    --repository-format=docker --description="BERT QA serving and build images"
fi

say "== Service accounts"
if ! exists iam service-accounts describe "$RUNTIME_SA"; then
  gc iam service-accounts create "$RUNTIME_SA_NAME" --display-name="QA function runtime"
fi
if ! exists iam service-accounts describe "$INGEST_SA"; then
  gc iam service-accounts create "$INGEST_SA_NAME" --display-name="QA ingestion job"
fi
if ! exists iam service-accounts describe "$BUILD_SA"; then
  gc iam service-accounts create "$BUILD_SA_NAME" --display-name="QA build and deploy"
fi

# IAM cannot narrow Firestore access to collections; the condition narrows it to
# the one database, and the service never lists or queries beyond its collections.
DB_CONDITION="expression=resource.name==\"projects/${PROJECT_ID}/databases/${FIRESTORE_DATABASE}\",title=qa-database-only"
# The index's objects: their names (reads, writes, deletes) and listings of their prefix (Lance lists
# _versions/ to find the newest table version). gcloud's ^;^ makes ';' the separator of the condition's
# fields, as the expression holds commas.
INDEX_OBJECTS="projects/_/buckets/${BUCKET}/objects/${INDEX_PREFIX}/"
INDEX_EXPRESSION="resource.name.startsWith(\"${INDEX_OBJECTS}\") || api.getAttribute(\"storage.googleapis.com/objectListPrefix\", \"\").startsWith(\"${INDEX_PREFIX}/\")"
INDEX_CONDITION="^;^expression=${INDEX_EXPRESSION};title=qa-index-only"

say "== Runtime account: Firestore (this database only), read on gs://$BUCKET/$INDEX_PREFIX/ only"
gc projects add-iam-policy-binding "$PROJECT_ID" --member="serviceAccount:$RUNTIME_SA" \
  --role=roles/datastore.user --condition="$DB_CONDITION"
gc storage buckets add-iam-policy-binding "gs://$BUCKET" --member="serviceAccount:$RUNTIME_SA" \
  --role=roles/storage.objectViewer --condition="$INDEX_CONDITION"
# Before ingestion had an account of its own, the runtime account read the whole bucket (the corpus):
# that binding, if this project still has it, goes.
gc storage buckets remove-iam-policy-binding "gs://$BUCKET" --member="serviceAccount:$RUNTIME_SA" \
  --role=roles/storage.objectViewer --condition=None 2>/dev/null \
  || say "(no bucket-wide read of the runtime account to remove)"

say "== Ingestion account: Firestore (this database only), read on the bucket, write on gs://$BUCKET/$INDEX_PREFIX/"
gc projects add-iam-policy-binding "$PROJECT_ID" --member="serviceAccount:$INGEST_SA" \
  --role=roles/datastore.user --condition="$DB_CONDITION"
gc storage buckets add-iam-policy-binding "gs://$BUCKET" --member="serviceAccount:$INGEST_SA" \
  --role=roles/storage.objectViewer
# objectUser: create, read, list, overwrite and delete objects (Lance's commits, compaction, clean-up of
# old versions); not their IAM policies.
gc storage buckets add-iam-policy-binding "gs://$BUCKET" --member="serviceAccount:$INGEST_SA" \
  --role=roles/storage.objectUser --condition="$INDEX_CONDITION"

say "== Build account"
gc storage buckets add-iam-policy-binding "gs://$BUCKET" --member="serviceAccount:$BUILD_SA" \
  --role=roles/storage.objectUser
gc artifacts repositories add-iam-policy-binding "$REPOSITORY" --location="$REGION" \
  --member="serviceAccount:$BUILD_SA" --role=roles/artifactregistry.writer
# Deploying revisions needs run.developer; the smoke test calls the service (run.invoker).
for role in roles/run.developer roles/run.invoker roles/logging.logWriter; do
  gc projects add-iam-policy-binding "$PROJECT_ID" --member="serviceAccount:$BUILD_SA" \
    --role="$role" --condition=None
done
# Deploy revisions that run as the runtime account; mint identity tokens for itself.
gc iam service-accounts add-iam-policy-binding "$RUNTIME_SA" \
  --member="serviceAccount:$BUILD_SA" --role=roles/iam.serviceAccountUser
gc iam service-accounts add-iam-policy-binding "$BUILD_SA" \
  --member="serviceAccount:$BUILD_SA" --role=roles/iam.serviceAccountOpenIdTokenCreator

if (( DRY_RUN )); then "$INFRA_DIR/monitoring.sh" --skip-api --dry-run; else "$INFRA_DIR/monitoring.sh" --skip-api; fi
say "Set-up done. Next: PROJECT_ID=$PROJECT_ID infra/release.sh (build, push, deploy, smoke test);"
say "  with the Lance retrieval index: INDEX=lance for release.sh and infra/ingest_job.sh (docs/deploy.md)."
