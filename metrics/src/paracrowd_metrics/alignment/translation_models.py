"""EM training of IBM Model 1 and the HMM alignment model, vectorised with numpy.

One direction at a time: target words f are generated from source words e (plus NULL).
Sentences are arrays of word ids; NULL is id ``vocabulary_size``. The translation table
t(f | e) has one entry per (e, f) pair that co-occurs in some sentence pair.

Model 1's E-step runs over every (pair, source position, target position) cell at once. The
HMM's forward-backward runs over all sentence pairs of the same two lengths at once, with
per-step scaling against underflow.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

INITIAL_NULL_PROBABILITY = 0.2
# Keep the NULL probability away from 0 and 1, where the HMM could never recover from.
NULL_PROBABILITY_RANGE = (0.01, 0.9)
SMALLEST = 1e-12


@dataclass(frozen=True)
class DirectionalTables:
    """Trained parameters of one direction, as arrays of word ids."""

    source_ids: np.ndarray  # e of each table entry (vocabulary_size for NULL)
    target_ids: np.ndarray  # f of each table entry
    probabilities: np.ndarray  # t(f | e)
    jumps: np.ndarray  # weights of jump widths -max_jump..max_jump
    null_probability: float


def hmm_transitions(
    jumps: np.ndarray, null_probability: float, length: int, smoothing: float
) -> tuple[np.ndarray, np.ndarray]:
    """Initial and transition probabilities of the HMM over 2·length states.

    States 0..I-1 are source words; state I+i is NULL remembering source position i, so a
    jump after a NULL-aligned word is measured from the last real position (Och & Ney). The
    first word jumps from a virtual position -1. The jump distribution is interpolated with a
    uniform one (weight ``smoothing``): without it, EM lets a dominant jump width (usually +1)
    overrule the lexicon and settles on monotone alignments of reordered words.
    """
    max_jump = (len(jumps) - 1) // 2
    positions = np.arange(length)
    widths = np.clip(positions[None, :] - positions[:, None], -max_jump, max_jump)
    weights = jumps[widths + max_jump]
    jump_share = (1 - smoothing) * weights / weights.sum(axis=1, keepdims=True) + smoothing / length
    words = (1 - null_probability) * jump_share
    transition = np.zeros((2 * length, 2 * length))
    transition[:length, :length] = words
    transition[length:, :length] = words
    transition[positions, length + positions] = null_probability
    transition[length + positions, length + positions] = null_probability
    start = jumps[np.clip(positions + 1, -max_jump, max_jump) + max_jump]
    start = (1 - smoothing) * start / start.sum() + smoothing / length
    initial = np.concatenate(
        [(1 - null_probability) * start, np.full(length, null_probability / length)]
    )
    return initial, transition


class _Table:
    """t(f | e) over the (e, f) pairs that co-occur, addressed by packed keys."""

    def __init__(self, keys: np.ndarray, vocabulary_size: int):
        self.width = vocabulary_size + 1
        self.keys = np.unique(keys)
        self.sources = self.keys // self.width
        # Uniform start: every f equally likely under each e.
        per_source = np.bincount(self.sources, minlength=self.width)
        self.probabilities = 1.0 / per_source[self.sources]

    def entries(self, sources: np.ndarray, targets: np.ndarray) -> np.ndarray:
        return np.searchsorted(self.keys, sources.astype(np.int64) * self.width + targets)

    def normalise(self, counts: np.ndarray) -> None:
        totals = np.bincount(self.sources, weights=counts, minlength=self.width)
        with np.errstate(invalid="ignore", divide="ignore"):
            updated = counts / totals[self.sources]
        self.probabilities = np.where(np.isfinite(updated), updated, 0.0)


@dataclass
class _Group:
    """All sentence pairs of one (source length, target length), as arrays."""

    source_length: int
    target_length: int
    word_entries: np.ndarray  # (pairs, J, I) table entries of (e_i, f_j)
    null_entries: np.ndarray  # (pairs, J) table entries of (NULL, f_j)


@dataclass(frozen=True)
class _Cells:
    """Every (pair, source position or NULL, target position) cell of a corpus, flattened."""

    sources: np.ndarray  # e of each cell
    targets: np.ndarray  # f of each cell
    tokens: np.ndarray  # which target word (numbered over the corpus) each cell belongs to
    token_count: int


def _cells(pairs: Sequence[tuple[np.ndarray, np.ndarray]], null_id: int) -> _Cells:
    sources, targets, tokens = [], [], []
    token = 0
    for source, target in pairs:
        with_null = np.append(source, null_id)
        sources.append(np.tile(with_null, len(target)))
        targets.append(np.repeat(target, len(with_null)))
        tokens.append(np.repeat(np.arange(token, token + len(target)), len(with_null)))
        token += len(target)
    return _Cells(np.concatenate(sources), np.concatenate(targets), np.concatenate(tokens), token)


def _model1(cells: _Cells, table: _Table, iterations: int) -> None:
    entries = table.entries(cells.sources, cells.targets)
    for _ in range(iterations):
        probability = table.probabilities[entries]
        # Each target word's alignment posterior over its pair's source words and NULL.
        totals = np.bincount(cells.tokens, weights=probability, minlength=cells.token_count)
        posterior = probability / np.maximum(totals[cells.tokens], SMALLEST)
        table.normalise(np.bincount(entries, weights=posterior, minlength=len(table.keys)))


def _groups(
    pairs: Sequence[tuple[np.ndarray, np.ndarray]], table: _Table, null_id: int
) -> list[_Group]:
    by_shape = defaultdict(list)
    for source, target in pairs:
        by_shape[len(source), len(target)].append((source, target))
    groups = []
    for (length, target_length), members in sorted(by_shape.items()):
        sources = np.array([source for source, _ in members])
        targets = np.array([target for _, target in members])
        word_entries = table.entries(sources[:, None, :], targets[:, :, None])
        null_entries = table.entries(np.full(targets.shape, null_id), targets)
        groups.append(_Group(length, target_length, word_entries, null_entries))
    return groups


def _forward_backward(
    emissions: np.ndarray, initial: np.ndarray, transition: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """State posteriors (pairs, J, S) and summed transition posteriors (S, S)."""
    pairs, steps, states = emissions.shape
    alpha = np.empty_like(emissions)
    scale = np.empty((pairs, steps))
    current = initial * emissions[:, 0]
    for step in range(steps):
        if step:
            current = (alpha[:, step - 1] @ transition) * emissions[:, step]
        scale[:, step] = np.maximum(current.sum(axis=1), SMALLEST)
        alpha[:, step] = current / scale[:, step, None]
    beta = np.empty_like(emissions)
    beta[:, -1] = 1.0
    for step in range(steps - 2, -1, -1):
        following = emissions[:, step + 1] * beta[:, step + 1]
        beta[:, step] = (following @ transition.T) / scale[:, step + 1, None]
    weighted = emissions[:, 1:] * beta[:, 1:] / scale[:, 1:, None]
    moves = transition * np.einsum("bti,btk->ik", alpha[:, :-1], weighted)
    return alpha * beta, moves


def _hmm(
    groups: list[_Group], table: _Table, iterations: int, max_jump: int, smoothing: float
) -> tuple[np.ndarray, float]:
    jumps = np.ones(2 * max_jump + 1)
    null_probability = INITIAL_NULL_PROBABILITY
    for _ in range(iterations):
        entry_lists, weight_lists = [], []
        jump_counts = np.zeros_like(jumps)
        into_null = into_words = 0.0
        for group in groups:
            length = group.source_length
            initial, transition = hmm_transitions(jumps, null_probability, length, smoothing)
            words = table.probabilities[group.word_entries]
            null = table.probabilities[group.null_entries]
            emissions = np.concatenate([words, np.repeat(null[:, :, None], length, axis=2)], axis=2)
            posterior, moves = _forward_backward(
                np.maximum(emissions, SMALLEST), initial, transition
            )
            entry_lists += [group.word_entries.ravel(), group.null_entries.ravel()]
            weight_lists += [
                posterior[:, :, :length].ravel(),
                posterior[:, :, length:].sum(axis=2).ravel(),
            ]
            # Jumps between word positions, from a word state or a NULL state alike; the
            # first word jumps from position -1.
            positions = np.arange(length)
            widths = np.clip(positions[None, :] - positions[:, None], -max_jump, max_jump)
            to_words = moves[:length, :length] + moves[length:, :length]
            jump_counts += np.bincount(
                (widths + max_jump).ravel(), weights=to_words.ravel(), minlength=len(jumps)
            )
            first = posterior[:, 0, :length].sum(axis=0)
            jump_counts += np.bincount(
                np.clip(positions + 1, -max_jump, max_jump) + max_jump,
                weights=first,
                minlength=len(jumps),
            )
            into_words += to_words.sum() + first.sum()
            into_null += moves[:, length:].sum() + posterior[:, 0, length:].sum()
        table.normalise(
            np.bincount(
                np.concatenate(entry_lists),
                weights=np.concatenate(weight_lists),
                minlength=len(table.keys),
            )
        )
        jumps = np.maximum(jump_counts, SMALLEST)
        jumps /= jumps.sum()
        null_probability = float(
            np.clip(into_null / (into_null + into_words), *NULL_PROBABILITY_RANGE)
        )
    return jumps, null_probability


def train_direction(
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
    *,
    vocabulary_size: int,
    ibm1_iterations: int,
    hmm_iterations: int,
    max_jump: int,
    jump_smoothing: float,
) -> DirectionalTables:
    """Model 1 then HMM training of t(f | e), jumps and NULL probability for one direction."""
    null_id = vocabulary_size
    cells = _cells(pairs, null_id)
    table = _Table(
        cells.sources.astype(np.int64) * (vocabulary_size + 1) + cells.targets, vocabulary_size
    )
    _model1(cells, table, ibm1_iterations)
    jumps = np.ones(2 * max_jump + 1) / (2 * max_jump + 1)
    null_probability = INITIAL_NULL_PROBABILITY
    if hmm_iterations:
        groups = _groups(pairs, table, null_id)
        jumps, null_probability = _hmm(groups, table, hmm_iterations, max_jump, jump_smoothing)
    return DirectionalTables(
        source_ids=table.sources,
        target_ids=table.keys % table.width,
        probabilities=table.probabilities,
        jumps=jumps,
        null_probability=null_probability,
    )
