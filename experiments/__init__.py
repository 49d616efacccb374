"""One-off experiments, apart from the product: each answered a question once; their findings are in docs/.

    experiments/experiment_distil.sh NAME [--set section.key=value ...]
        one distillation variant beside the main build, sharing its finished teacher stage
        (build/exp-NAME/distil; the F1 of each variant tried is in docs/build.md and artifact/REPORT.md)
    experiments/student_variants.sh
        the student variants' CPU work in one resumable chain: the sandbox build (MPNet teacher,
        MiniLM base, packaged student), then an ensemble-teacher variant and 4- and 6-layer students
    python -m experiments.layers_latency [--model build/distil/model]
        int8 latency of the student cut to 1, 2, 3 layers, beside the shipped model
        (docs/benchmarks.md, "Why the misses cannot go lower here")
    python -m experiments.before_after BEFORE_DIR [AFTER_DIR] --out OUT
        two checkouts' function served in turn: cold start and warm latency, interleaved
        (records/bench/before_after/)

Nothing in function/, build_model/ or bench/ imports them; tests/test_layers_latency.py
keeps the second one's model chain working.
"""
