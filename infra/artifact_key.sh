#!/usr/bin/env bash
# Print the cache key of the artifact that a build configuration produces.
#
#   infra/artifact_key.sh build_model/configs/production.toml    ->  3f1c0e9a7b2d4c61
#
# The key is the first 16 hex digits of a sha256 over the configuration file and
# the inputs that decide the artifact's bytes: the build stage's code, both
# requirements files, and the artifact format and tokenizer modules it imports.
# cloudbuild.yaml and infra/train_vertex.sh both use it, so an artifact trained
# on Vertex AI is found by the pipeline at gs://$BUCKET/artifacts/config-<key>/.
# Local only: reads files, never the network (so --dry-run is not needed).
set -euo pipefail
cd "$(dirname "$0")/.."

usage="usage: infra/artifact_key.sh build_model/configs/NAME.toml"
config=${1:-}
case "$config" in
  -h|--help) echo "$usage"; exit 0 ;;
  --dry-run) echo "artifact_key.sh: reads files only, so there is nothing to dry-run: $usage" >&2; exit 2 ;;
  "") echo "$usage" >&2; exit 2 ;;
esac
if [[ ! -f "$config" ]]; then
  echo "artifact_key.sh: error: build configuration $config does not exist" >&2
  exit 1
fi

# sha256sum (GNU coreutils) or shasum (macOS): the same "digest  name" lines.
sha() { if command -v sha256sum >/dev/null; then sha256sum "$@"; else shasum -a 256 "$@"; fi; }

{
  printf 'config\n'
  cat "$config"
  while IFS= read -r -d '' file; do sha "$file"; done \
    < <(find build_model -name '*.py' -not -path '*/__pycache__/*' -print0 | LC_ALL=C sort -z)
  sha requirements.txt build_model/requirements.txt function/model/artifact.py function/model/tokenizer.py
} | sha - | cut -c1-16
