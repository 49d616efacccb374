#!/usr/bin/env bash
# One distillation variant beside the main build, sharing its finished teacher and base stages and the
# teacher logits cache (build/teacher_logits: keyed, so variants with other features add files of their own).
#   experiments/experiment_distil.sh NAME [--set section.key=value ...]
# writes build/exp-NAME/distil (stage.json holds dev EM/F1 and the training history).
# A variant worth shipping is copied to build/distil and the config set to match it:
# the next `python -m build_model` then skips teacher and distil (same inputs hash).
set -euo pipefail
if [ $# -lt 1 ]; then
  echo "usage: $0 NAME [--set section.key=value ...]" >&2
  exit 2
fi
name=$1
shift
root=$(cd "$(dirname "$0")/.." && pwd)
work="$root/build/exp-$name"
if [ ! -f "$root/build/teacher/stage.json" ]; then
  echo "the teacher stage has not finished: build/teacher/stage.json is missing" >&2
  exit 1
fi
mkdir -p "$work" "$root/build/teacher_logits"
for shared in teacher base teacher_logits; do
  [ -e "$work/$shared" ] || [ ! -e "$root/build/$shared" ] || ln -s "../$shared" "$work/$shared"
done
cd "$root"
exec "$root/.venv/bin/python" -m build_model --stage distil --set "work_dir=$work" "$@"
