"""Hypothesis strategies shared by the alignment tests."""

from hypothesis import given
from hypothesis import strategies as st

from paracrowd_metrics.alignment import Alignment


@st.composite
def alignments(draw, max_source=8, max_target=8, min_source=1, min_target=1):
    """A random alignment with its sentence lengths: (alignment, source length, target length)."""
    n = draw(st.integers(min_source, max_source))
    m = draw(st.integers(min_target, max_target))
    cells = st.tuples(st.integers(0, n - 1), st.integers(0, m - 1))
    possible = draw(st.frozensets(cells, max_size=n * m))
    sure = draw(st.frozensets(st.sampled_from(sorted(possible)))) if possible else frozenset()
    return Alignment(sure=sure, possible=possible), n, m


@given(alignments())
def test_generated_alignments_stay_inside_their_sentences(case):
    alignment, n, m = case

    assert alignment.sure <= alignment.possible
    assert all(i < n and j < m for i, j in alignment.possible)
