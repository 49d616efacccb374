"""The model side of the function: from an artifact folder to answer spans.

In the order a request meets them:

- ``artifact``: the artifact folder described by ``manifest.json`` (``Manifest``), and
  ``verify``, which checks every file's size and sha256 before anything is loaded;
- ``tokenizer``: the artifact's Rust tokenizer (``QATokenizer``): text -> token ids and
  character offsets, for questions at request time and for passages at ingestion;
- ``windows``: the single definition of the model's input layout (``WindowSpec``,
  ``Batch``): a question against pre-tokenised passages, cut into overlapping windows;
- ``onnx_model``: the ONNX Runtime session (``OnnxQAModel``): a ``Batch`` -> start/end logits;
- ``unpadded``: a request's windows each through the model at its own length, not padded to the
  longest, their logits back in the ``Batch`` layout;
- ``decode``: start/end logits -> the best spans, scored across windows and passages;
- ``reader``: the one door to decoding, which the function and the build stage's evaluation
  both read through: ``prepare`` before a model run, ``answers_from_logits`` and
  ``no_answer_verdict`` (whether to abstain) after it.
- ``code``: what a code block's line is made of (a prompt before it, a comment or an
  import that is not the way), one definition for ingestion, the reader and the build
  stage's training questions.

Nothing here knows about HTTP, the store or the cache; the build stage imports
these modules too, so it trains, exports and evaluates on the inputs the
function serves. Importing this package loads nothing heavy (numpy,
tokenizers and onnxruntime come with the modules that need them).
"""
