#!/usr/bin/env bash
# After finish.sh: RULE.md's figures of build/hn-artifact, the rules' dev parts first, the test parts (reported)
# last; about 50 minutes on 2 CPUs.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
export PYTHONUNBUFFERED=1 PYTHONPATH=.
A=build/hn-artifact
step() { echo "[$(date +%T)] $1"; }
step "docs dev, one store"; .venv/bin/python -m bench docs --part dev --pooled --artifact $A --out build/hn-pooled-dev || exit 1
step "docs dev, a store per set"; .venv/bin/python -m bench docs --part dev --artifact $A --out build/hn-dev || exit 1
step "make run's sample"; .venv/bin/python records/build/sandbox/docs-hardneg/sample_check.py $A > build/hn-sample.json || exit 1
cat build/hn-sample.json
step "SQuAD out of corpus"; .venv/bin/python -m bench out-of-corpus --with-train --retrieval hybrid --artifact $A --out build/hn-ooc || exit 1
step "docs test (reported), one store"; .venv/bin/python -m bench docs --part test --pooled --artifact $A --out build/hn-pooled-test || exit 1
step "docs test (reported), a store per set"; .venv/bin/python -m bench docs --part test --artifact $A --out build/hn-test || exit 1
step done
