"""Stage 2, base: fine-tune the encoder the student's layers are cut from (optional).

A student cut from a large teacher would be too wide to be fast; the sandbox
cuts it from a smaller encoder of the same vocabulary (MiniLM-L6), fine-tuned
on SQuAD first so its QA head and layers start close to the task, then
distilled from the teacher. Without a ``[base]`` section the student is cut
from the teacher (or given as ``[student] model``), and this stage does nothing.
"""

from __future__ import annotations

from build_model.config import BuildConfig
from build_model.stages.teacher import fine_tune


def run(cfg: BuildConfig, force: bool = False) -> dict:
    if cfg.base is None:
        print("base: no [base] section, nothing to do")
        return {}
    return fine_tune(cfg, "base", force)
