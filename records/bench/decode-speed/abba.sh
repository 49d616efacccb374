# Before / after in alternation (old, new, new, old): OLD is a checkout of the commit before
# (git worktree add /tmp/oldtree 5854231), NEW this one; STORE the embedded store ab.py ingests once.
cd "$(dirname "$0")/../../.." || exit 1
OLD=${OLD:-/tmp/oldtree}
NEW=${NEW:-$PWD}
STORE=${STORE:-build/decode-speed/store.sqlite}
P=.venv/bin/python
S=records/bench/decode-speed/ab.py
mkdir -p build/decode-speed
for x in "old1:$OLD" "new1:$NEW" "new2:$NEW" "old2:$OLD"; do
  n=${x%%:*}; t=${x#*:}
  echo "== $n ($t)"; $P $S "$t" "build/decode-speed/$n.json" "$STORE" 2>&1 | grep -v '^{"sev'
done
$P $S --compare build/decode-speed/old1.json build/decode-speed/new1.json
