"""An unsupervised word aligner for pre-aligning sentence pairs.

IBM Model 1, then an HMM alignment model (Vogel, Ney & Tillmann 1996) with a jump-width
distribution and NULL states as in Och & Ney (2003), trained by EM in both directions and
symmetrised by intersection: a link is kept only when both directions choose it, which
favours precision. This mirrors the GIZA++ set-up of Cohn et al. (2008), including a
word-identity lexicon: every word seen in training is added as a one-word sentence pair with
itself, so the model learns that a word may align to itself.

Words are lowercased. A word pair never seen together gets a small floor probability, or the
identity probability when the two words are the same.

``Aligner.align`` gives the model's intersection, for any pair of languages. What
``Aligner.prealign`` returns for paraphrases combines the model with what needs no model (see
``bench/aligner.py`` for how it was chosen and what it scores): identical words are linked
first, one to one (``anchors``); then the model's links grow from them along the diagonal, as
the grow-diag heuristic of phrase-based translation does: a model link is added when both its
words are still unlinked, neither is punctuation, and a link already made sits just before or
just after it on the diagonal ("a man *slices* an onion", "a man *cuts* an onion"). Model links
far from any anchor were wrong more often than right on the RTE-2 dev pairs. Punctuation
is never linked to a word.

``Aligner.to_dict`` / ``Aligner.from_dict`` give a JSON-ready form (the lexicon tables, with
entries below ``PRUNE_BELOW`` dropped at the end of training, so a stored aligner aligns
exactly as the trained one).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from .anchors import identical_word_anchors, is_punctuation
from .links import Alignment
from .translation_models import DirectionalTables, hmm_transitions, train_direction

FLOOR = 1e-7
PRUNE_BELOW = 1e-4
FORMAT_VERSION = 1


@dataclass(frozen=True)
class DirectionalModel:
    """P(target words | source words) of one direction: lexicon, jumps and NULL probability.

    ``jumps[d + max_jump]`` weighs a jump of width d (clipped to ±max_jump) between the
    source positions of successive target words.
    """

    lexicon: dict[str, dict[str, float]]
    null_lexicon: dict[str, float]
    jumps: tuple[float, ...]
    jump_smoothing: float
    null_probability: float
    identity_probability: float

    @property
    def max_jump(self) -> int:
        return (len(self.jumps) - 1) // 2

    def _emissions(self, source: Sequence[str], target: Sequence[str]) -> np.ndarray:
        """log P(target word j | state) for word states 0..I-1 then NULL states I..2I-1."""
        words = np.empty((len(target), len(source)))
        for i, e in enumerate(source):
            row = self.lexicon.get(e, {})
            for j, f in enumerate(target):
                found = row.get(f)
                if found is None:
                    found = self.identity_probability if e == f else FLOOR
                words[j, i] = found
        null = np.array([self.null_lexicon.get(f, FLOOR) for f in target])
        both = np.concatenate([words, np.repeat(null[:, None], len(source), axis=1)], axis=1)
        return np.log(np.maximum(both, FLOOR))

    def transitions(self, length: int) -> tuple[np.ndarray, np.ndarray]:
        """Initial and transition probabilities over the 2·length states."""
        return hmm_transitions(
            np.asarray(self.jumps), self.null_probability, length, self.jump_smoothing
        )

    def viterbi(self, source: Sequence[str], target: Sequence[str]) -> set[tuple[int, int]]:
        """The most probable alignment of each target word: links (source i, target j)."""
        if not source or not target:
            return set()
        length = len(source)
        emissions = self._emissions(source, target)
        with np.errstate(divide="ignore"):
            initial, transition = (np.log(table) for table in self.transitions(length))
        score = initial + emissions[0]
        back = np.zeros((len(target), 2 * length), dtype=np.intp)
        for j in range(1, len(target)):
            candidates = score[:, None] + transition
            back[j] = candidates.argmax(axis=0)
            score = candidates.max(axis=0) + emissions[j]
        state = int(score.argmax())
        links = set()
        for j in range(len(target) - 1, -1, -1):
            if state < length:
                links.add((state, j))
            state = int(back[j, state])
        return links

    def to_dict(self) -> dict:
        return {
            "lexicon": self.lexicon,
            "null_lexicon": self.null_lexicon,
            "jumps": list(self.jumps),
            "jump_smoothing": self.jump_smoothing,
            "null_probability": self.null_probability,
            "identity_probability": self.identity_probability,
        }

    @classmethod
    def from_dict(cls, data: dict) -> DirectionalModel:
        return cls(
            lexicon={e: dict(row) for e, row in data["lexicon"].items()},
            null_lexicon=dict(data["null_lexicon"]),
            jumps=tuple(data["jumps"]),
            jump_smoothing=float(data["jump_smoothing"]),
            null_probability=float(data["null_probability"]),
            identity_probability=float(data["identity_probability"]),
        )


@dataclass(frozen=True)
class Aligner:
    """Two directional models; ``align`` keeps the links both agree on."""

    forward: DirectionalModel  # target words generated from source words
    backward: DirectionalModel  # source words generated from target words

    def align(self, source: Sequence[str], target: Sequence[str]) -> Alignment:
        """Sure links (i, j) chosen by both directions' Viterbi alignments."""
        source = [word.lower() for word in source]
        target = [word.lower() for word in target]
        forward = self.forward.viterbi(source, target)
        backward = {(i, j) for j, i in self.backward.viterbi(target, source)}
        return Alignment(sure=forward & backward)

    def prealign(self, source: Sequence[str], target: Sequence[str]) -> Alignment:
        """A paraphrase pair's pre-alignment: identical-word anchors grown by the model's
        links (see the module docs); punctuation links only to punctuation."""
        model = self.align(source, target).sure
        links = set(identical_word_anchors(source, target, favoured=model))
        linked_source = {i for i, _ in links}
        linked_target = {j for _, j in links}
        pending = [
            (i, j)
            for i, j in sorted(model)
            if not (is_punctuation(source[i]) or is_punctuation(target[j]))
        ]
        grown = True
        while grown:
            grown = False
            for i, j in pending:
                if i in linked_source or j in linked_target:
                    continue
                if (i - 1, j - 1) in links or (i + 1, j + 1) in links:
                    links.add((i, j))
                    linked_source.add(i)
                    linked_target.add(j)
                    grown = True
        return Alignment(sure=links)

    def to_dict(self) -> dict:
        """A JSON-ready description of the aligner."""
        return {
            "version": FORMAT_VERSION,
            "forward": self.forward.to_dict(),
            "backward": self.backward.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: dict) -> Aligner:
        """The aligner ``to_dict`` described."""
        if data.get("version") != FORMAT_VERSION:
            raise ValueError(f"unknown aligner format version {data.get('version')!r}")
        return cls(
            DirectionalModel.from_dict(data["forward"]),
            DirectionalModel.from_dict(data["backward"]),
        )


def _model(
    tables: DirectionalTables, vocabulary: Sequence[str], jump_smoothing: float
) -> DirectionalModel:
    lexicon: dict[str, dict[str, float]] = {}
    null_lexicon: dict[str, float] = {}
    identity = []
    null_id = len(vocabulary)
    keep = tables.probabilities >= PRUNE_BELOW
    for e, f, probability in zip(
        tables.source_ids[keep], tables.target_ids[keep], tables.probabilities[keep], strict=True
    ):
        if e == null_id:
            null_lexicon[vocabulary[f]] = float(probability)
        else:
            lexicon.setdefault(vocabulary[e], {})[vocabulary[f]] = float(probability)
            if e == f:
                identity.append(float(probability))
    return DirectionalModel(
        lexicon=lexicon,
        null_lexicon=null_lexicon,
        jumps=tuple(float(weight) for weight in tables.jumps),
        jump_smoothing=jump_smoothing,
        null_probability=tables.null_probability,
        identity_probability=float(np.mean(identity)) if identity else 0.5,
    )


def train_aligner(
    pairs: Iterable[tuple[Sequence[str], Sequence[str]]],
    *,
    iterations: int = 5,
    hmm_iterations: int | None = None,
    identity_lexicon: bool = True,
    max_jump: int = 8,
    jump_smoothing: float = 0.5,
) -> Aligner:
    """Train IBM Model 1 then the HMM model in both directions on tokenised sentence pairs.

    ``iterations`` EM iterations of Model 1, then ``hmm_iterations`` (default: the same) of
    the HMM. ``identity_lexicon`` adds every word as a one-word pair with itself. Jump widths
    beyond ``max_jump`` share one weight; ``jump_smoothing`` is the weight of the uniform
    distribution mixed into the jumps (see ``translation_models.hmm_transitions``).
    """
    pairs = [
        ([word.lower() for word in source], [word.lower() for word in target])
        for source, target in pairs
    ]
    vocabulary = sorted({word for source, target in pairs for word in (*source, *target)})
    index = {word: number for number, word in enumerate(vocabulary)}
    encoded = [
        (np.array([index[w] for w in source]), np.array([index[w] for w in target]))
        for source, target in pairs
        if source and target
    ]
    if identity_lexicon:
        encoded += [(np.array([number]), np.array([number])) for number in range(len(vocabulary))]
    if not encoded:
        raise ValueError("the aligner needs at least one non-empty sentence pair")
    hmm_iterations = iterations if hmm_iterations is None else hmm_iterations
    options = {
        "vocabulary_size": len(vocabulary),
        "ibm1_iterations": iterations,
        "hmm_iterations": hmm_iterations,
        "max_jump": max_jump,
        "jump_smoothing": jump_smoothing,
    }
    forward = train_direction(encoded, **options)
    backward = train_direction([(target, source) for source, target in encoded], **options)
    return Aligner(
        _model(forward, vocabulary, jump_smoothing), _model(backward, vocabulary, jump_smoothing)
    )
