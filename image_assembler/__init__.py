"""The serving image without a container engine: read the Dockerfile, lay out its final stage on disk.

    from image_assembler import assemble
    image = assemble(Path("/tmp/image"), {"artifact/": Path("artifact")})
    image.command(), image.env(), image.workdir, image.python()   # as the image's CMD runs

``dockerfile`` parses the Dockerfile into stages; ``layout`` assembles the
final stage (its virtual environment, the copied paths, byte-compilation)
and measures its size. The tests check the image's contents with it
(tests/test_image_contents.py, tests/test_dockerfile.py) and
``python -m bench image`` measures the image's size, start-up and serving.
Not part of the image itself (.dockerignore allows only what it copies).
"""

from image_assembler.dockerfile import (
    DOCKERFILE,
    REPO,
    Copy,
    Instruction,
    Stage,
    base_chain,
    copies,
    exec_form,
    final_stage,
    parse_env,
    read_dockerfile,
    stage_by_name,
    workdir,
)
from image_assembler.layout import BUILD_ONLY, Image, assemble, dockerignored, make_venv, sizes

__all__ = ["BUILD_ONLY", "DOCKERFILE", "REPO", "Copy", "Image", "Instruction", "Stage", "assemble", "base_chain",
           "copies", "dockerignored", "exec_form", "final_stage", "make_venv", "parse_env", "read_dockerfile",
           "sizes", "stage_by_name", "workdir"]
