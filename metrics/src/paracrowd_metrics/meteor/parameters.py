"""The parameters of the METEOR-style score and the matchers they weigh.

Defaults are Denkowski & Lavie's (2010, Table 4) tuned English parameters with paraphrases:
α = 0.75, β = 0.60, γ = 0.35, and matcher weights exact 1.0, stem 0.8, synonym 0.8,
paraphrase 0.6.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace

MATCHERS = ("exact", "stem", "synonym", "paraphrase")


@dataclass(frozen=True)
class MeteorParameters:
    """α weighs precision against recall in Fmean, β shapes and γ scales the fragmentation
    penalty; each matcher's weight scales the words it matches in precision and recall."""

    alpha: float = 0.75
    beta: float = 0.60
    gamma: float = 0.35
    exact: float = 1.0
    stem: float = 0.8
    synonym: float = 0.8
    paraphrase: float = 0.6

    def __post_init__(self) -> None:
        for item in fields(self):
            value = getattr(self, item.name)
            if not isinstance(value, int | float) or value != value:
                raise ValueError(f"METEOR parameter {item.name} must be a number, not {value!r}")
        if not 0.0 <= self.alpha <= 1.0:
            raise ValueError(f"alpha must be in [0, 1], not {self.alpha}")
        if not 0.0 <= self.gamma <= 1.0:
            raise ValueError(f"gamma must be in [0, 1], not {self.gamma}")
        if self.beta < 0.0:
            raise ValueError(f"beta must not be negative, not {self.beta}")
        for name in MATCHERS:
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"the {name} weight must be in [0, 1], not {getattr(self, name)}")

    def weight(self, matcher: str) -> float:
        return getattr(self, matcher)

    def with_changes(self, **changes) -> MeteorParameters:
        return replace(self, **changes)

    def as_dict(self) -> dict[str, float]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> MeteorParameters:
        """Parameters from a mapping; unknown names are refused, missing ones take defaults."""
        unknown = set(data) - {item.name for item in fields(cls)}
        if unknown:
            raise ValueError(f"unknown METEOR parameters: {', '.join(sorted(unknown))}")
        return cls(**{name: float(value) for name, value in data.items()})

    def signature_fields(self) -> str:
        """``a:0.75,b:0.6,g:0.35,w:1/0.8/0.8/0.6`` (weights in matcher order)."""
        weights = "/".join(f"{getattr(self, name):g}" for name in MATCHERS)
        return f"a:{self.alpha:g},b:{self.beta:g},g:{self.gamma:g},w:{weights}"


ENGLISH = MeteorParameters()
