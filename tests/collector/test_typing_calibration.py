"""``calibrate_typing_signals`` simulates honest and dishonest writers, runs their typing
records through the site's own signals and prints the calibration table; seeded, so the same
options print the same table. The rates themselves are the simulation's, not asserted here."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from collector import provenance
from collector.typing_calibration import NOT_MEASURED, POPULATIONS, SIGNAL_THRESHOLDS


def table(*options) -> str:
    out = StringIO()
    call_command("calibrate_typing_signals", *options, stdout=out)
    return out.getvalue()


def test_the_same_seed_prints_the_same_table():
    first = table("--seed", "3", "--workers", "4", "--texts", "3")

    assert table("--seed", "3", "--workers", "4", "--texts", "3") == first


def test_the_table_has_a_row_per_signal_and_per_population():
    text = table("--seed", "0", "--workers", "3", "--texts", "2")

    assert text.startswith("Seed 0; 3 workers a population, 2 texts each; shares of texts.")
    assert list(SIGNAL_THRESHOLDS) == ["pasted", "too_fast", "background"]
    for signal, threshold in SIGNAL_THRESHOLDS.items():
        assert f"| `{signal}` | {threshold} | " in text
    assert "pasted characters > 50% of the text" in text  # the bound the code uses
    for population in POPULATIONS:
        kind = "honest" if population.honest else "dishonest"
        assert f"| {population.name} ({kind}) | " in text
    names = {population.name for population in POPULATIONS}
    assert {"fast typist", "slow typist", "IME", "swipe", "phone"} <= names
    assert {"paster", "copy-prompt-paste", "automation", "canary-follower"} <= names
    for goal in ("paste", "automation", "canary"):
        assert f"| {goal} | " in text


@pytest.mark.skipif("canary" in provenance.SIGNALS, reason="the canary signal exists")
def test_a_signal_that_does_not_exist_yet_is_not_yet_measured():
    text = table("--workers", "1", "--texts", "1")

    assert f"| canary | canary-follower | – | {NOT_MEASURED} |" in text


def test_it_refuses_an_empty_population():
    with pytest.raises(CommandError, match="at least 1"):
        table("--workers", "0")
