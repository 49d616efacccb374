# syntax=docker/dockerfile:1
#
# The serving image of the BERT question-answering function, and (optional
# stages) the toolchain that builds its model artifact.
#
#   docker build -t qa .                        serving image (last stage, `runtime`)
#   docker build --target ingest -t qa-ingest . ingestion image: the serving image's code and
#                                               artifact plus requirements-ingest.txt, runs
#                                               `python -m function.ingest` (infra/ingest_job.sh)
#   docker build --target model -t qa-builder . build-stage image (torch etc.): the
#                                               Vertex AI training image, see infra/train_vertex.sh
#   DOCKER_BUILDKIT=1 docker build --target artifact --output type=local,dest=artifact \
#       --build-arg BUILD_CONFIG=build_model/configs/production.toml .
#                                               runs `python -m build_model` (its data in
#                                               ./data) and writes the artifact to ./artifact
#
# The serving image holds the slim Python base, a virtual environment with
# requirements.txt only (pinned; no torch, transformers or onnx), the function
# code and the artifact (stage `app`), with the serving settings (stage `serving`,
# which `runtime` and `runtime-lance` are built FROM). The ingestion image is the
# same stage `app` (same layers, so the same artifact and tokenizer fingerprint)
# with the document libraries on top; the serving image never holds them. Stages that are not
# needed for the requested target are skipped by BuildKit, so the plain build
# installs neither torch nor the ingestion libraries.

# Python 3.11 because requirements.txt is pinned and tested on 3.11; Debian 13
# (trixie) is the current stable release. Pin a digest (python:3.11-slim-trixie@sha256:...)
# when bit-for-bit rebuilds matter more than the base image's security updates.
FROM python:3.11-slim-trixie AS base
ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# --- runtime dependencies: a virtual environment from requirements.txt only ---
FROM base AS runtime-deps
COPY requirements.txt /tmp/requirements.txt
# No pip in the environment (the image never installs at run time); pip
# byte-compiles what it installs, so imports read .pyc files from the start.
RUN python -m venv --without-pip /opt/venv \
    && pip --python /opt/venv/bin/python install --no-cache-dir -r /tmp/requirements.txt

# --- build stage toolchain (optional): python -m build_model -------------------
# PyPI's torch wheels for Linux carry CUDA, which the Vertex AI GPU job needs. For
# a CPU-only build pass --build-arg PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/cpu
FROM base AS model
ARG PIP_EXTRA_INDEX_URL
WORKDIR /src
COPY requirements.txt ./
COPY build_model/requirements.txt build_model/
RUN pip install --no-cache-dir -r requirements.txt -r build_model/requirements.txt
COPY function/ function/
COPY build_model/ build_model/
ENTRYPOINT ["python", "-m", "build_model"]
CMD ["--config", "build_model/configs/production.toml"]

FROM model AS model-build
ARG BUILD_CONFIG=build_model/configs/production.toml
# The build stage reads its data from local files: production.toml's SQuAD files
# are data/squad/*-v1.1.json in the build context, mounted for this step only.
RUN --mount=type=bind,source=data,target=/src/data \
    python -m build_model --config "${BUILD_CONFIG}" --set package.out=/artifact

FROM scratch AS artifact
COPY --from=model-build /artifact/ /

# --- what the serving and the ingestion images share ------------------------
FROM base AS app
RUN groupadd --system --gid 10001 qa \
    && useradd --system --uid 10001 --gid qa --no-create-home --home-dir /nonexistent \
       --shell /usr/sbin/nologin qa
COPY --from=runtime-deps /opt/venv /opt/venv
WORKDIR /app
# Least often changed first: a code change then re-pushes only the small code layers.
COPY artifact/ ./artifact/
COPY main.py ./
COPY function/ ./function/
# Byte-compile the function's own code now: the code is root-owned and read-only
# for the service user, so Python could not cache it at run time and would
# recompile it on every cold start (docs/deploy.md#measured has the measurement).
RUN /opt/venv/bin/python -m compileall -q main.py function
# The artifact's path set explicitly (the function's default is relative to its working directory).
ENV PATH=/opt/venv/bin:$PATH \
    QA_ARTIFACT_DIR=/app/artifact \
    QA_SQLITE_PATH=/tmp/qa/passages.sqlite

# --- the ingestion image (optional): docker build --target ingest ------------
# python -m function.ingest on .txt/.md/.html/.pdf documents needs the libraries
# of requirements-ingest.txt, installed into the same environment by the base
# image's pip (the environment itself has none). Its layer sits on top of the
# shared code layers, so it is re-installed when the code changes.
FROM app AS ingest
COPY requirements-ingest.txt /tmp/requirements-ingest.txt
RUN pip --python /opt/venv/bin/python install --no-cache-dir -r /tmp/requirements-ingest.txt
USER 10001:10001
ENTRYPOINT ["python", "-m", "function.ingest"]
CMD ["--help"]

# --- the serving settings, shared by the serving images ----------------------
# The `runtime` stage (the default target, last below) is this stage as it is;
# `runtime-lance` adds the Lance libraries on top, so both serve alike.
# Cloud Run sets PORT; functions-framework reads it (and FUNCTION_TARGET, WORKERS,
# THREADS). One gunicorn worker: the ONNX session uses every CPU of the container
# by itself (QA_INFERENCE_MODE: a lone request on every CPU, concurrent ones on one
# each, up to QA_INFERENCE_CONCURRENCY at a time), and a
# second process would double the memory. THREADS=8 matches the recommended
# Cloud Run concurrency of 8, so the requests that wait on Firestore or hit the
# answer cache do not queue behind the one running the model.
# MALLOC_ARENA_MAX=2: glibc gives each busy thread its own heap arena; with 8-16
# request threads the resident memory reached 321-386 MB instead of 200-249 MB,
# at the same latency (docs/deploy.md#measured).
FROM app AS serving
ENV PORT=8080 \
    FUNCTION_TARGET=answer \
    WORKERS=1 \
    THREADS=8 \
    MALLOC_ARENA_MAX=2
USER 10001:10001
EXPOSE 8080
CMD ["functions-framework", "--target=answer"]

# --- the serving image with the Lance retrieval index (optional) --------------
#   docker build --target runtime-lance      for QA_INDEX_URI (docs/retrieval.md): the serving
#                                            image plus requirements-lance.txt (pylance, pyarrow)
#                                            and the sentence encoder (encoder/, 23.3 MB);
#   docker build --target ingest-lance       the ingestion image plus the same, to write the index.
# Both set QA_INDEX_ENCODER to the encoder: hybrid retrieval (BM25 and embeddings mixed), which
# answered better at every corpus size and on documentation (docs/retrieval.md); the service and
# every ingestion task then agree on it. QA_INDEX_ENCODER= (empty) turns it off for both.
# Deployments that keep the store's own index use the plain images, which never hold them.
# The install runs as root (the environment is root-owned), then the image drops back to the
# service user.
FROM serving AS runtime-lance
USER 0:0
COPY requirements-lance.txt /tmp/requirements-lance.txt
RUN pip --python /opt/venv/bin/python install --no-cache-dir -r /tmp/requirements-lance.txt
COPY encoder/ ./encoder/
ENV QA_INDEX_ENCODER=/app/encoder
USER 10001:10001

FROM ingest AS ingest-lance
USER 0:0
COPY requirements-lance.txt /tmp/requirements-lance.txt
RUN pip --python /opt/venv/bin/python install --no-cache-dir -r /tmp/requirements-lance.txt
COPY encoder/ ./encoder/
ENV QA_INDEX_ENCODER=/app/encoder
USER 10001:10001

# --- the images with stored cosines (optional) --------------------------------
#   docker build --target runtime-cosines    the serving image plus the sentence encoder (encoder/, 23.3 MB)
#                                            and QA_INDEX_ENCODER, without QA_INDEX_URI: the store's own index
#                                            still retrieves (BM25) and each passage's stored embedding gives the
#                                            question's cosine to it, for the span ranking and "no answer"
#                                            (docs/retrieval.md, "Stored cosines");
#   docker build --target ingest-cosines     the ingestion image plus the same, which stores the embeddings.
# No install: the encoder runs on the ONNX Runtime and tokenizers the serving image already has.
FROM serving AS runtime-cosines
COPY encoder/ ./encoder/
ENV QA_INDEX_ENCODER=/app/encoder

FROM ingest AS ingest-cosines
COPY encoder/ ./encoder/
ENV QA_INDEX_ENCODER=/app/encoder

# --- a serving image with its corpus inside (optional) ----------------------
#   QA_STORE=sqlite QA_SQLITE_PATH=corpus/passages.sqlite python -m function.ingest DOCS...
#   docker build --target runtime-corpus -t qa-corpus .
# For documents that change with releases, not between them (a product's manuals): every instance
# answers from its own copy of the SQLite file (the passages and their BM25 index), so no question
# reads Firestore and there is none to set up (docs/deploy.md#the-corpus-in-the-image); a new corpus
# is a new image. The folder belongs to the service user: SQLite keeps its write-ahead log beside the
# file (in the container's writable layer; answering writes nothing else). With hybrid retrieval,
# ingest with QA_INDEX_URI=corpus/index.lance QA_INDEX_ENCODER=encoder as well and build
# --target runtime-lance-corpus, which searches that folder; with stored cosines, ingest with
# QA_INDEX_ENCODER=encoder alone and build --target runtime-cosines-corpus.
FROM serving AS runtime-corpus
COPY --chown=10001:10001 corpus/ ./corpus/
ENV QA_STORE=sqlite \
    QA_SQLITE_PATH=/app/corpus/passages.sqlite

FROM runtime-lance AS runtime-lance-corpus
COPY --chown=10001:10001 corpus/ ./corpus/
ENV QA_STORE=sqlite \
    QA_SQLITE_PATH=/app/corpus/passages.sqlite \
    QA_INDEX_URI=/app/corpus/index.lance

FROM runtime-cosines AS runtime-cosines-corpus
COPY --chown=10001:10001 corpus/ ./corpus/
ENV QA_STORE=sqlite \
    QA_SQLITE_PATH=/app/corpus/passages.sqlite

# --- the serving image (the default target: the last stage) ------------------
# The serving stage as it is: `docker build .` builds it, and the ingestion image
# shares its layers up to `app`.
FROM serving AS runtime
