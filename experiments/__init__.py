"""One-off experiments, apart from the product: each answered a question once; their findings are in docs/.

    experiments/experiment_distil.sh NAME [--set section.key=value ...]
        one distillation variant beside the main build, sharing its finished teacher stage
        (build/exp-NAME/distil; the F1 of each variant tried is in docs/build.md and artifact/REPORT.md)
    experiments/issue15_chain.sh
        issue 15's CPU work in one resumable chain: the sandbox build (MPNet teacher, MiniLM base,
        3-layer student, packaged), then an ensemble-teacher variant and 4- and 6-layer students
    python -m experiments.layers_latency [--model build/distil/model]
        int8 latency of the student cut to 1, 2, 3 layers, beside the shipped model
        (docs/benchmarks.md, "Why the misses cannot go lower here")

Nothing in function/, build_model/ or bench/ imports them; tests/test_layers_latency.py
keeps the second one's model chain working.
"""
