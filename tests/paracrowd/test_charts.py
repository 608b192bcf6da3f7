"""Server-drawn charts: round ticks, axes, a zero line, and words when there is nothing to draw."""

import pytest
from django.template.loader import render_to_string

from paracrowd.charts import forest_plot, grouped_bars, line_chart, nice_ticks, tick_label


@pytest.mark.parametrize(
    "low, high, expected",
    [
        (0, 1, [0, 0.2, 0.4, 0.6, 0.8, 1.0]),
        (-0.312424, 1, [-0.5, 0, 0.5, 1.0]),
        (0, 100, [0, 20, 40, 60, 80, 100]),
        (0, 7, [0, 2, 4, 6, 8]),
        (0, 0, [0, 0.2, 0.4, 0.6, 0.8, 1.0]),
    ],
)
def test_ticks_are_round_and_cover_the_values(low, high, expected):
    assert nice_ticks(low, high) == pytest.approx(expected)


def test_tick_labels_have_the_decimals_the_ticks_need_and_keep_their_sign():
    ticks = nice_ticks(-0.312424, 1)
    assert [tick_label(t, ticks) for t in ticks] == ["-0.5", "0.0", "0.5", "1.0"]
    assert tick_label(25000, nice_ticks(0, 100000)) == "25,000"


def test_a_correlation_plot_has_round_ticks_a_zero_line_and_room_for_the_sign():
    chart = line_chart(
        "r by references",
        [1, 2, 4],
        {"BLEU": [(-0.312424, 0.05), (0.2, None), (0.61, 0.1)]},
        low=-0.312424,
        high=1.0,
        y_label="Pearson r",
    )
    svg = render_to_string("charts/lines.html", {"chart": chart})

    assert [t.label for t in chart.ticks] == ["-0.5", "0.0", "0.5", "1.0"]
    assert "0.312424" not in svg
    assert chart.zero is not None and 'class="zero"' in svg
    # The axis title sits above the top tick, not on it.
    assert min(t.y for t in chart.ticks) - 10 >= 10


def test_grouped_bars_draw_a_value_axis():
    chart = grouped_bars("BLEU by references", [1, 2], {"BLEU": [40.0, 55.5]}, top=100)
    svg = render_to_string("charts/grouped_bars.html", {"chart": chart})

    assert [t.label for t in chart.ticks] == ["0", "25", "50", "75", "100"]
    assert 'class="axis"' in svg and ">100</text>" in svg


def test_grouped_bars_take_in_negative_values_below_a_line_at_zero():
    chart = grouped_bars("Agreement by length", ["1–5", "6–10"], {"κ": [-0.5, 0.75]})
    svg = render_to_string("charts/grouped_bars.html", {"chart": chart})

    assert chart.ticks[0].label.startswith("-0.5") and chart.ticks[-1].label.startswith("1")
    (negative,), (positive,) = (bars for _, bars in chart.groups)
    # The negative bar hangs below zero, the positive one stands on it, each to its value.
    assert negative.y == pytest.approx(chart.zero) and negative.height > 0
    assert positive.y + positive.height == pytest.approx(chart.zero)
    assert positive.height == pytest.approx(negative.height * 0.75 / 0.5)
    assert 'class="zero"' in svg


def test_a_chart_with_nothing_to_draw_says_so_in_words():
    bars = grouped_bars("Agreement by length", ["1–5"], {"observed": [None]})
    lines = line_chart("r by references", [1], {"BLEU": [(None, None)]})
    for template, chart in (("grouped_bars", bars), ("lines", lines)):
        html = render_to_string(f"charts/{template}.html", {"chart": chart})
        assert "<svg" not in html and "Nothing to draw yet" in html


def test_a_forest_plot_takes_in_zero_with_round_ticks_and_a_row_per_estimate():
    chart = forest_plot(
        "Δ PINC",
        [
            ("reword", 12.3456, 4.2, 20.7),
            ("a system with a very long name indeed", -3.0, -8.5, 1.25),
            ("not compared", None, None, None),
        ],
        x_label="difference in PINC",
    )
    svg = render_to_string("charts/forest.html", {"chart": chart})

    assert [label for label, _ in chart.x_ticks] == ["-10", "0", "10", "20", "30"]
    assert [row.label for row in chart.rows] == ["reword", "a system with a very long…"]
    reword, long = chart.rows
    assert reword.low < reword.x < reword.high and long.low < chart.zero < long.high
    assert reword.text == "reword: 12.35 [4.20, 20.70]"
    assert 'class="zero"' in svg and "a system with a very long name indeed: -3.00" in svg


def test_a_forest_plot_with_nothing_to_show_says_so():
    chart = forest_plot("Δ BLEU", [("b", None, None, None)])
    svg = render_to_string("charts/forest.html", {"chart": chart})
    assert chart.empty and "Nothing to draw yet" in svg and "<svg" not in svg
