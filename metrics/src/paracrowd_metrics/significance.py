"""Paired bootstrap resampling (Koehn 2004, as MT evaluation uses it) for comparing two
systems on the same test items.

Each resample draws the items with replacement, the same draw for both systems, and takes the
difference of their mean scores. The spread of those differences gives a 95% interval; how
often the difference falls on the other side of zero gives a two-sided p-value. Seeded, so a
comparison gives the same figures every time it is run.
"""

from dataclasses import asdict, dataclass

import numpy as np

DEFAULT_SAMPLES = 1000
# Items drawn per block of resamples: bounds memory at samples × items without a loop per sample.
_BLOCK_CELLS = 2_000_000


@dataclass(frozen=True)
class PairedComparison:
    items: int
    difference: float  # mean(system) − mean(baseline) on the items as they are
    low: float  # 2.5th percentile of the resampled differences
    high: float  # 97.5th percentile
    p_value: float  # two-sided: how likely a difference this far from zero is by chance

    def as_dict(self) -> dict:
        return asdict(self)


def paired_bootstrap(
    system: list[float], baseline: list[float], *, samples: int = DEFAULT_SAMPLES, seed: int = 0
) -> PairedComparison | None:
    """Compare ``system`` with ``baseline``, item by item (the lists pair up); None with no
    items. The p-value counts resamples whose difference has the other sign (or is zero), doubled
    for two sides and kept at most 1; with no resample past zero it is below 1/samples, and is
    reported as 1/(samples + 1) rather than as an impossible 0."""
    if len(system) != len(baseline):
        raise ValueError("the system and the baseline must be scored on the same items")
    if not system or samples < 1:
        return None
    differences = np.asarray(system, dtype=float) - np.asarray(baseline, dtype=float)
    observed = float(differences.mean())
    rng = np.random.default_rng(seed)
    n = len(differences)
    means = []
    block = max(1, _BLOCK_CELLS // n)
    for start in range(0, samples, block):
        draws = rng.integers(0, n, size=(min(block, samples - start), n))
        means.append(differences[draws].mean(axis=1))
    resampled = np.concatenate(means)
    if observed >= 0:
        against = np.count_nonzero(resampled <= 0)
    else:
        against = np.count_nonzero(resampled >= 0)
    p_value = min(1.0, max(2 * against, 1) / (samples + 1)) if observed else 1.0
    low, high = np.percentile(resampled, [2.5, 97.5])
    return PairedComparison(
        items=n, difference=observed, low=float(low), high=float(high), p_value=float(p_value)
    )
