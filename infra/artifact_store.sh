#!/usr/bin/env bash
# The artifact's versioned home in Cloud Storage, for the release pipeline (cloudbuild.yaml).
#
#   infra/artifact_store.sh [--dry-run] fetch  SOURCE CONFIG   decide where artifact/ comes from
#   infra/artifact_store.sh [--dry-run] upload                 store artifact/ under its version
#
# SOURCE is where the artifact comes from:
#   repo   artifact/ as committed; its version is repo-<artifact_hash[:16]>
#   cache  gs://$BUCKET/artifacts/config-<key>/ where <key> = infra/artifact_key.sh CONFIG
#          (written by infra/train_vertex.sh or an earlier pipeline build); an error
#          when it is not there, naming the way to build it
#   build  the same stored artifact when there is one, else built in the pipeline
#          from CONFIG (CPU; small configurations). The SQuAD files under
#          gs://$BUCKET/squad/, if any, are copied to data/squad/ for the build.
# One key, one artifact: a configuration is never built twice under the same version.
# `fetch` writes the decision to build/artifact-state/state (repo|fetched|build) and the
# version to build/artifact-state/version; the build step reads them. `upload` copies
# artifact/ (model, tokenizer, manifest, REPORT.md, report.png) to
# gs://$BUCKET/artifacts/<version>/ unless that version is already stored;
# manifest.json goes last, so a folder without it is an unfinished upload.
# ARTIFACT_STATE_DIR moves build/artifact-state (tests).
set -euo pipefail
# shellcheck source=infra/lib.sh
source "$(dirname "$0")/lib.sh"

ACTION="" ARGS=()
while (( $# )); do
  case $1 in
    --dry-run|-h|--help) common_option "$1" ;;
    fetch|upload) ACTION=$1 ;;
    -*) usage_error "unknown option $1" ;;
    *) ARGS+=("$1") ;;
  esac
  shift
done
[[ -n "$ACTION" ]] || usage_error "say fetch or upload"
load_settings
cd "$REPO_DIR"
STATE_DIR=${ARTIFACT_STATE_DIR:-build/artifact-state}
ARTIFACT=artifact
mkdir -p "$STATE_DIR"

manifest_hash() {
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["artifact_hash"][:16])' "$1/manifest.json"
}

stored() {  # stored VERSION: the version's manifest.json is in the bucket
  exists storage objects describe "gs://${BUCKET}/artifacts/$1/manifest.json"
}

fetch() {
  local source=${ARGS[0]:-} config=${ARGS[1]:-} version
  case $source in
    repo)
      [[ -f "$ARTIFACT/manifest.json" ]] \
        || die "_ARTIFACT_SOURCE=repo but $ARTIFACT/manifest.json is not in the source; use cache or build"
      version="repo-$(manifest_hash "$ARTIFACT")"
      echo repo > "$STATE_DIR/state" ;;
    cache|build)
      [[ -n "$config" ]] || usage_error "fetch $source needs the build configuration"
      version="config-$("$INFRA_DIR/artifact_key.sh" "$config")"
      if stored "$version"; then
        run rm -rf "$ARTIFACT"
        run mkdir -p "$ARTIFACT"
        gc storage cp "gs://${BUCKET}/artifacts/${version}/*" "$ARTIFACT/"
        echo fetched > "$STATE_DIR/state"
      elif [[ $source == cache ]]; then
        die "no artifact for $config in gs://${BUCKET}/artifacts/${version}/: build it on a GPU with" \
          "infra/train_vertex.sh --config $config, or in the pipeline (CPU) with _ARTIFACT_SOURCE=build"
      else
        say "artifact $version is not stored: the next step builds it from $config"
        run rm -rf "$ARTIFACT"  # the build writes a fresh one; nothing of the repository's is mixed in
        if exists storage ls "gs://${BUCKET}/squad/"; then
          run mkdir -p data/squad
          gc storage cp "gs://${BUCKET}/squad/*.json" data/squad/
        fi
        echo build > "$STATE_DIR/state"
      fi ;;
    *) usage_error "SOURCE must be repo, cache or build, not '$source'" ;;
  esac
  echo "$version" > "$STATE_DIR/version"
  say "artifact: $(cat "$STATE_DIR/state"), version $version"
}

upload() {
  local version dest file
  [[ -f "$STATE_DIR/version" ]] || die "run fetch first ($STATE_DIR/version is missing)"
  [[ -f "$ARTIFACT/manifest.json" ]] || die "$ARTIFACT/manifest.json is missing: the artifact was not built"
  version=$(cat "$STATE_DIR/version")
  dest="gs://${BUCKET}/artifacts/${version}"
  if stored "$version"; then
    say "$dest/ is already stored; not overwritten"
    return
  fi
  for file in "$ARTIFACT"/*; do
    [[ -f "$file" && "$(basename "$file")" != manifest.json ]] || continue
    gc storage cp "$file" "$dest/"
  done
  gc storage cp "$ARTIFACT/manifest.json" "$dest/"
  say "stored the artifact and its report in $dest/"
}

"$ACTION"
