"""Training: SQuAD features, the training loop, teacher soft targets and their alignment, the student."""
