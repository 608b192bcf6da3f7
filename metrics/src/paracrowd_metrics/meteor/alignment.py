"""Choosing one alignment among the candidate matches (Denkowski & Lavie 2010, Section 2).

Each word is covered by at most one match; among such subsets the chosen one covers the most
words of both sentences together, then has the fewest chunks (runs of matches contiguous and
in the same order in both sentences), then the smallest sum of distances between match start
positions. A last tie-break, not in the paper, prefers words matched by earlier matchers
(exact before stem before synonym before paraphrase), so the result never depends on the
order the candidates were found in.

The search walks the hypothesis left to right. Matches that share no word with any other
candidate belong to every best alignment (adding one covers more words, and coverage comes
first), so they are taken without branching; when every candidate is like that, which is
the common case, there is no search at all. Otherwise partial alignments that reach the same
hypothesis position with the same reference words used and the same chunk state are merged,
keeping the best, and at most ``beam`` of them are kept per position. Below that many the
search is exact.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .matchers import Match

DEFAULT_BEAM = 64


@dataclass(frozen=True)
class ChosenAlignment:
    matches: tuple[Match, ...]  # in hypothesis order
    chunks: int


def _chunks(matches: Sequence[Match]) -> int:
    chunks = 0
    hyp_end = ref_end = -1
    for match in matches:
        if match.hyp_start != hyp_end or match.ref_start != ref_end:
            chunks += 1
        hyp_end = match.hyp_start + match.hyp_length
        ref_end = match.ref_start + match.ref_length
    return chunks


def _free(matches: Sequence[Match], hyp_length: int, ref_length: int) -> list[bool]:
    """Whether each match shares no word with any other match."""
    hyp_cover = [0] * hyp_length
    ref_cover = [0] * ref_length
    for match in matches:
        for i in range(match.hyp_start, match.hyp_start + match.hyp_length):
            hyp_cover[i] += 1
        for j in range(match.ref_start, match.ref_start + match.ref_length):
            ref_cover[j] += 1
    return [
        all(hyp_cover[i] == 1 for i in range(m.hyp_start, m.hyp_start + m.hyp_length))
        and all(ref_cover[j] == 1 for j in range(m.ref_start, m.ref_start + m.ref_length))
        for m in matches
    ]


def choose_alignment(
    matches: Sequence[Match], hyp_length: int, ref_length: int, *, beam: int = DEFAULT_BEAM
) -> ChosenAlignment:
    """The best alignment among ``matches`` (see the module's docstring)."""
    if not matches:
        return ChosenAlignment((), 0)
    free = _free(matches, hyp_length, ref_length)
    if all(free):
        ordered = tuple(sorted(matches))
        return ChosenAlignment(ordered, _chunks(ordered))
    starting: list[list[tuple[Match, bool, int]]] = [[] for _ in range(hyp_length)]
    for match, is_free in zip(matches, free, strict=True):
        mask = ((1 << match.ref_length) - 1) << match.ref_start
        starting[match.hyp_start].append((match, is_free, mask))
    # A state: (ranking key, used reference words, end of the last match in the reference or
    # -1 after an unmatched word, chosen matches as a linked list). The key ranks the best
    # first: most words covered, fewest chunks, least distance, earliest matchers.
    start = ((0, 0, 0, 0), 0, -1, None)
    states: list[dict] = [{} for _ in range(hyp_length + 1)]
    states[0][0, -1] = start
    for position in range(hyp_length):
        here = states[position]
        if not here:
            continue
        if len(here) > beam:
            kept = sorted(here.values(), key=lambda state: state[0])[:beam]
        else:
            kept = here.values()
        options = starting[position]
        forced = any(is_free for _, is_free, _ in options)
        for key, used, ref_end, chosen in kept:
            if not forced:
                _offer(states[position + 1], (key, used, -1, chosen))
            covered, chunks, distance, late = key
            for match, _, mask in options:
                if used & mask:
                    continue
                new_key = (
                    covered - match.hyp_length - match.ref_length,
                    chunks + (ref_end != match.ref_start),
                    distance + abs(match.hyp_start - match.ref_start),
                    late + match.matcher * (match.hyp_length + match.ref_length),
                )
                _offer(
                    states[position + match.hyp_length],
                    (new_key, used | mask, match.ref_start + match.ref_length, (match, chosen)),
                )
    best = min(states[hyp_length].values(), key=lambda state: state[0])
    found = []
    chosen = best[3]
    while chosen is not None:
        found.append(chosen[0])
        chosen = chosen[1]
    return ChosenAlignment(tuple(reversed(found)), best[0][1])


def _offer(states: dict, state: tuple) -> None:
    """Keep ``state`` unless one with the same future and a better key is already there."""
    merge_key = (state[1], state[2])
    present = states.get(merge_key)
    if present is None or state[0] < present[0]:
        states[merge_key] = state
