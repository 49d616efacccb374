"""Span bias: how retrieval and reading are combined when a question is asked without passage ids.

(Not the hybrid index's mix of two rankings, ``hybrid``: this is what the reader adds to each retrieved
passage's spans, whichever index retrieved them.)

The retrieved passages' spans are ranked by

    start logit + end logit + BM25_WEIGHT * the passage's BM25 score / the best BM25 score read
        - NULL_WEIGHT * the window's [CLS] score (its start + end logits at [CLS])
        + COSINE_WEIGHT * the question's cosine to the passage (hybrid retrieval only)
        + NAME_WEIGHT * the passage's share of the question's plain names (where it gives one)

(raw logits, as in BERTserini, Yang et al. 2019), with ``score`` the softmax of
that sum over every candidate span read. The reader then ranks the best of them
again with the question's words in each span's sentence (``function.model.sentence``,
for passages given by id too). Ranking the spans by the reader's
probabilities alone (each window normalised over [CLS] and its own tokens, as
for ``passage_ids``) lets a passage that does not hold the answer win: a
SQuAD-trained reader is confident in most passages. Raw logits keep the
reader's confidence comparable across windows, and the passage's BM25 score
adds the retriever's evidence that the passage holds the answer, which the
reader alone does not weigh. Divided by the best score among the passages read,
it says how far a passage is behind the best one whatever the question's
length or the corpus's statistics, which set the raw scores' scale. The
[CLS] term is the reader's own evidence that a window does not hold the answer:
a model trained with unanswerable pairs raises it there (``function.model.decode``
subtracts it per window, ``null_weight``).

With hybrid retrieval (``QA_INDEX_ENCODER``) the sentence encoder's cosine between
the question and each passage is the retriever's second piece of evidence, and it
is added too: on the SQuAD dev questions asked alone (a Lance index with vectors
over the train + dev paragraphs) it raised F1 by 0.70 +- 0.24 (paired), chosen on
the odd half of the questions and holding on the even half; on the documentation
benchmark it changed nothing asked alone (docs/retrieval.md, "Ranking the answers
of several passages"). A passage only BM25 found carries the lowest cosine of the
vector search's list, a bound on its own (its vector is not read). Where Lance
answered from its approximate index alone (tables past 5,000 rows) it reported
2 x cosine - 1 until 2026-11-30 (so the weight acted as 4 there, inside the plateau
measured: 2 to 16 all gained); ``LanceIndex.nearest`` gives the cosines themselves now.
With stored cosines (``QA_INDEX_ENCODER`` without ``QA_INDEX_URI``) every passage BM25
retrieved has its exact cosine, from the embedding stored with it at ingestion.

The names term (2026-12-02) weighs whether a passage holds the proper nouns and numbers the
question gives ("Super", "Bowl", "50"; ``plain_name_shares``): SQuAD dev asked alone +0.51
(8 answers up, none down), the documentation benchmark's blind sets +0.88, its dev part
unchanged. Code-shaped names are left out of it: documentation writes "SortedDict.popitem" apart,
and counting them lost documentation answers (docs/retrieval.md, "The question's plain names").

BM25_WEIGHT and the division were chosen for the 6-layer abstention-trained
artifact on the SQuAD dev questions asked alone, NULL_WEIGHT for the model trained
on documentation too on the odd half of them and checked on the even half, so dev F1 asked alone is no
longer an unbiased figure for them; the documentation questions' dev part
checked that they do not hurt there. The F1 of each ranking and the commands
are in docs/retrieval.md ("Ranking the answers of several passages").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from function.retrieval.terms import terms, without_abbreviations

BM25_WEIGHT = 8.0
NULL_WEIGHT = 0.5
COSINE_WEIGHT = 2.0
# ... and this times its share of the question's plain names ("Super", "Bowl", "50"; ``plain_name_shares``): a passage
# without a proper noun the question gives seldom answers it (docs/retrieval.md, "The question's plain names")
NAME_WEIGHT = 6.0
# "No answer" for a question asked alone with hybrid retrieval: the artifact's threshold moves by
# NO_ANSWER_COSINE_WEIGHT x (the best cosine of the passages read - NO_ANSWER_COSINE_AT) (``no_answer_shift``)
NO_ANSWER_COSINE_WEIGHT = 16.0
NO_ANSWER_COSINE_AT = 0.5
# ... and further by NO_ANSWER_TERMS_WEIGHT x (the best share of the question's terms a passage read holds -
# NO_ANSWER_TERMS_AT) (``term_share``), where the cosine moves it
NO_ANSWER_TERMS_WEIGHT = 16.0
NO_ANSWER_TERMS_AT = 0.6
# Stored cosines (BM25 retrieval, each passage's embedding stored with it): the two moves were chosen where hybrid
# retrieval picks passages by their cosine too; BM25's passages sit further from the question, so the same moves
# lower the threshold more. Their threshold is raised by this much on top: the smallest of 0, 0.25, ... at which the
# SQuAD dev fold's answerable questions abstain at most 1 point more than with BM25 alone (4.8% -> 3.7%; BM25 2.9%),
# chosen by a rule written first (docs/no_answer.md, "Stored cosines").
NO_ANSWER_STORED_OFFSET = 0.75
# ... and lowered by NO_ANSWER_NAME_SHIFT where a name the question gives is in none of the passages read
# (``missing_name``), where the cosine moves it: "What is the default port of MySQL?" reading another manual's ports
NO_ANSWER_NAME_SHIFT = 4.0
# ... and, for the windows of a passage whose whole document lacks a plain name the question gives
# (``plain_names_lacking``, checked through the index), lowered to NO_ANSWER_DOCUMENT_SHIFT below it in all: a question
# about an article the store lacks reads another article's paragraph ("Who produced the Doctor Who revival series?"
# answered from a network's article), where a name the passage lacks but its document holds is only written apart
NO_ANSWER_DOCUMENT_SHIFT = 8.0
# a name: a word with a capital after its first letter, a digit, or one of _ . : # + inside ("DataFrame", "HTTP2",
# "os.getcwd", "C++"), or a capitalised word that does not start the question ("Python", "GPG")
_NAME = re.compile(r"[A-Za-z0-9_][\w.:+#-]*[\w+#]|[A-Za-z0-9]")
# a code-shaped name: a mark of code inside, or camelCase ("SortedDict.copy", "max_size", "DataFrame")
_CODE_SHAPED = re.compile(r"[_.:#+]|[a-z][A-Z]")
# code-shaped for the document rule (``plain_names_lacking``): a mark of code inside, or camelCase that starts
# lower-case ("getUser", "fromStdString"); a name that starts with a capital ("MySQL", "HashMap") is written whole
# where a document holds it
_CODE_SHAPED_IN_DOCUMENTS = re.compile(r"[_.:#+]|^[a-z][^A-Z]*[A-Z]")
_NOT_NAMES = frozenset({"I", "A", "An", "The", "In", "On", "If", "Is", "Does", "Do", "Can", "How", "What", "Which",
                        "When", "Where", "Who", "Why"})


def question_names(question: str) -> list[str]:
    """The names a question gives (``_NAME``'s tokens that have a capital after their first letter, a digit, or one
    of ``_ . : # +``, and capitalised words other than its first; question words excluded), in order. "e.g." and
    "i.e." are not names (``terms.without_abbreviations``): no passage need hold them."""
    found = []
    for i, token in enumerate(_NAME.findall(without_abbreviations(question))):
        if token in _NOT_NAMES:
            continue
        if (any(c.isupper() for c in token[1:]) or any(c.isdigit() or c in "_.:#+" for c in token)
                or (i > 0 and token[0].isupper())):
            found.append(token)
    return found


def missing_name(question: str, passages: Sequence[tuple[str | None, str]]) -> bool:
    """Whether a name the question gives (``question_names``) is in none of ``passages`` (title, text), case-folded;
    False without passages or names."""
    return bool(missing_names(question, passages))


def missing_names(question: str, passages: Sequence[tuple[str | None, str]]) -> list[str]:
    """The names the question gives (``question_names``, as it writes them) that none of ``passages`` (title, text)
    holds, case-folded; none without passages or names."""
    names = question_names(question)
    if not names or not passages:  # most questions name nothing: the passages are not joined for them
        return []
    held = " ".join(_held(title, text) for title, text in passages)
    return [name for name in names if not _holds(_folded(name), held)]


def as_written(question: str, names) -> list[str]:
    """The question's names (``question_names``) that are among ``names`` (as it writes them or folded, ``_folded``),
    as it writes them, in its order, each once."""
    wanted = {_folded(name) for name in names}
    return list(dict.fromkeys(name for name in question_names(question) if _folded(name) in wanted))


def _folded(name: str) -> str:
    """A question's name as a passage is searched for it: case-folded, a sentence's "." or ":" after it dropped."""
    return name.casefold().strip(".:")


def _held(title: str | None, text: str) -> str:
    """A passage's title and text as they are searched for a question's names: case-folded."""
    return f"{title or ''} {text}".casefold()


def _holds(name: str, held: str) -> bool:
    """Whether ``held`` (``_held``) holds the folded ``name`` as a word, or as its plural or possessive ("bowl" in
    "bowls", "bowl's"), never inside another word ("nfl" is not held by "nflx", nor "50" by "1950")."""
    if name not in held:  # most passages lack it outright: no pattern is run for them
        return False
    return re.search(rf"(?<!\w){re.escape(name)}(?:s|es|['\u2019]s)?(?!\w)", held) is not None


def _plain_names(question: str, code_shaped: re.Pattern = _CODE_SHAPED) -> list[str]:
    """The question's names (``question_names``) less the code-shaped ones (``code_shaped``), folded (``_folded``)."""
    return [_folded(name) for name in question_names(question) if not code_shaped.search(name.strip(".:"))]


def plain_names_lacking(question: str, passages: Sequence[tuple[str | None, str]]) -> list[list[str]] | None:
    """Per passage (title, text): the question's plain names it does not hold; None where the question gives no
    plain name. Code-shaped names (``_CODE_SHAPED_IN_DOCUMENTS``) are left out for the reason ``plain_name_shares``
    gives: documentation writes "String::len" apart, in whichever document. A name that starts with a capital is plain
    here however it is cased inside ("MySQL", "DataFrame": a document that holds one writes it whole)."""
    names = _plain_names(question, _CODE_SHAPED_IN_DOCUMENTS)
    if not names:
        return None
    return [[name for name in names if not _holds(name, held)] for held in (_held(t, text) for t, text in passages)]


def name_terms(name: str) -> list[str]:
    """The index terms a document holding the folded ``name`` has (``terms.terms``), with the plural forms ``_holds``
    accepts: any of them counts ("bowl" is held by "bowls"; "bowl's" is analysed to "bowl")."""
    found = terms(name)
    if len(found) == 1:
        found += [found[0] + "s", found[0] + "es"]
    return found


def plain_name_shares(question: str, passages: Sequence[tuple[str | None, str]]) -> list[float] | None:
    """Each passage's (title, text) share of the question's plain names (``question_names`` less the code-shaped ones,
    ``_CODE_SHAPED``: "Super", "Bowl", "50", "NFL"), case-folded; None where the question gives no plain name. A
    code-shaped name is left out: documentation writes "SortedDict.popitem" apart (a class's heading, its method's
    entry), so the passage that answers often lacks it whole while one that only mentions it holds it."""
    names = _plain_names(question)
    if not names:
        return None
    held = [_held(title, text) for title, text in passages]
    return [sum(_holds(name, h) for name in names) / len(names) for h in held]


def passage_bias(bm25_scores: Sequence[float], weight: float = BM25_WEIGHT,
                 cosines: Sequence[float | None] | None = None, cosine_weight: float = COSINE_WEIGHT,
                 names: Sequence[float] | None = None, name_weight: float = NAME_WEIGHT) -> np.ndarray:
    """The per-passage term added to its spans' logits (see ``function.model.decode.best_spans``): ``weight``
    times each score over the best one (all 0 where no passage scored above 0, e.g. found by vectors alone),
    plus ``cosine_weight`` times each passage's cosine to the question where every passage has one, plus
    ``name_weight`` times each passage's share of the question's plain names (``plain_name_shares``) where it gives
    one."""
    scores = np.asarray(bm25_scores, dtype=np.float64)
    best = scores.max(initial=0.0)
    bias = weight * scores / best if best > 0 else np.zeros_like(scores)
    if cosines is not None and len(cosines) == len(scores) and all(c is not None for c in cosines):
        bias = bias + cosine_weight * np.asarray(cosines, dtype=np.float64)
    if names is not None and len(names) == len(scores):
        bias = bias + name_weight * np.asarray(names, dtype=np.float64)
    return bias


def term_share(question_terms: Sequence[str], passages: Sequence[tuple[str | None, str]]) -> float | None:
    """The largest share of the question's analysed terms (``terms.query_terms``) that one passage (title, text)
    holds, in its title or its text; None without question terms or passages."""
    wanted = set(question_terms)
    if not wanted or not passages:
        return None
    return max(len(wanted.intersection([*terms(title or ""), *terms(text)])) for title, text in passages) / len(wanted)


def no_answer_shift(cosines: Sequence[float | None], share: float | None = None,
                    weight: float = NO_ANSWER_COSINE_WEIGHT, at: float = NO_ANSWER_COSINE_AT,
                    terms_weight: float = NO_ANSWER_TERMS_WEIGHT, terms_at: float = NO_ANSWER_TERMS_AT,
                    offset: float = 0.0, name_missing: bool = False, name_shift: float = NO_ANSWER_NAME_SHIFT) -> float:
    """How far the "no answer" threshold moves for a question asked alone whose retrieved passages have these
    cosines to it (hybrid retrieval): ``weight`` x (the best - ``at``), up where some passage is close to the question
    in meaning, down where none is. An off-topic question's nearest passage is far from it (on the documentation
    benchmark's dev part the best cosine's median was 0.33 off-topic, 0.61 answerable), which the reader's margin alone
    does not see. 0 without cosines (BM25 alone). (Before 2026-11-30 also 0 where Lance searched its approximate
    vector index alone, tables of 5,000 rows and more, whose scores were then 2 x cosine - 1; ``LanceIndex.nearest``
    takes them back to the cosines now.) The weight and the point were chosen by SQuAD 2.0's
    objective (in-corpus F1 and out-of-corpus "no answer" alike) on SQuAD dev folds stored with every train.json
    paragraph, keeping the documentation dev part's abstentions at most 5%: there "no answer" out of corpus rose from
    72.5% to 80.9% for in-corpus F1 -0.25 (docs/no_answer.md, "A larger corpus, and the passages' cosine").

    Where the cosine moves it, ``share`` (``term_share``: how much of the question the passages read hold) moves
    it further by ``terms_weight`` x (``share`` - ``terms_at``): an off-topic question's passages share a word or
    two with it, an answerable one's hold most of its terms. Chosen the same way on top of the cosine (out of corpus
    with train.json 80.9% -> 86.2% computed from the replies, docs/no_answer.md); with BM25 alone the same signal
    was bound by the documentation abstentions and gained too little to keep, so it moves nothing there. BM25 with
    stored cosines moves it as hybrid retrieval does, raised by ``offset`` (the pipeline's
    ``NO_ANSWER_STORED_OFFSET``) where there are cosines.

    ``name_missing`` (``missing_name``: a name the question gives is in none of the passages read) lowers it by
    ``name_shift`` where the cosine moves it: with several manuals in one store an off-topic question reads another
    manual's passages on its subject ("What is the default port of MySQL?" reading other servers' ports), sure of a
    span there, and the cosine and the share of its terms are those of a question the store answers
    (docs/no_answer.md, "Eleven manuals in one store")."""
    found = [c for c in cosines if c is not None]
    if not found:
        return 0.0
    return (weight * (max(found) - at) + (terms_weight * (share - terms_at) if share is not None else 0.0) + offset
            - (name_shift if name_missing else 0.0))
