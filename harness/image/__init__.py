"""The Dockerfile's images without a container engine: read the Dockerfile, lay out a target on disk, start it.

    from harness.image import assemble, serve
    image = assemble(Path("/tmp/image"), {"artifact/": Path("artifact")})
    image.command(), image.env(), image.workdir, image.python()   # as the image's CMD runs
    serve(image, {"QA_STORE": "sqlite"}).start()                   # a FunctionServer
    ingest = assemble(Path("/tmp/ingest"), {"artifact/": Path("artifact")}, target="ingest")

``dockerfile`` parses the Dockerfile into stages and resolves their ``FROM <stage>``
chains (``runtime`` from ``serving`` from ``app``); ``layout`` assembles a
target (by default the final stage, the serving image) with the stages it is
built FROM: its virtual environment, the copied paths, its pip installs and
byte-compilation, and measures its size; ``start`` serves it and runs its
ingestion command with ``harness.launch``. The tests check the image's contents with it
(tests/test_image_contents.py, tests/test_dockerfile.py) and
``python -m bench image`` measures the image's size, start-up and serving.
Not part of the image itself (.dockerignore allows only what it copies).
"""

from harness.image.dockerfile import (
    DOCKERFILE,
    REPO,
    Copy,
    Instruction,
    Stage,
    base_chain,
    copies,
    copy_of,
    exec_form,
    final_stage,
    flatten,
    image_stage,
    parent_stage,
    parse_env,
    read_dockerfile,
    shared_base,
    stage_by_name,
    workdir,
)
from harness.image.layout import BUILD_ONLY, INGEST_ONLY, Image, assemble, dockerignored, make_venv, sizes
from harness.image.start import ingest, serve

__all__ = ["BUILD_ONLY", "DOCKERFILE", "INGEST_ONLY", "REPO", "Copy", "Image", "Instruction", "Stage", "assemble",
           "base_chain", "copies", "copy_of", "dockerignored", "exec_form", "final_stage", "flatten", "image_stage",
           "ingest", "make_venv", "parent_stage", "parse_env", "read_dockerfile", "serve", "shared_base", "sizes",
           "stage_by_name", "workdir"]
