"""Small server-drawn SVG charts: histograms counted by PostgreSQL, grouped bars, lines and
forest plots. Any app may draw them; each has its template in charts/ (histogram.html,
grouped_bars.html, lines.html, forest.html)."""

import math
from dataclasses import dataclass, replace

from django.db.models import Count, F, FloatField, Func, IntegerField, Value

# The steps an axis is marked in, times a power of ten: ticks a reader takes in at a glance.
NICE_STEPS = (1, 2, 2.5, 5, 10)


def nice_ticks(low: float, high: float, most: int = 6) -> list[float]:
    """Round values from at or below ``low`` to at or above ``high``, at most ``most`` of them,
    evenly spaced by 1, 2, 2.5 or 5 times a power of ten (0, 0.25, 0.5 … rather than 0.312424)."""
    if high <= low:
        high = low + 1
    rough = (high - low) / (most - 1)
    power = 10 ** math.floor(math.log10(rough))
    step = next(n * power for n in NICE_STEPS if n * power >= rough)
    first = math.floor(low / step + 1e-9) * step
    ticks = [first]
    while ticks[-1] < high - 1e-9 * step:
        ticks.append(first + len(ticks) * step)
    # Rounded to the step's decimals, so no float noise (0.30000000000000004) reaches a label.
    decimals = max(0, -math.floor(math.log10(step) + 1e-9)) + (1 if step / power == 2.5 else 0)
    return [round(t, decimals) + 0.0 for t in ticks]


def tick_label(value: float, ticks: list[float]) -> str:
    """``value`` with as many decimals as the ticks need to tell each other apart."""
    decimals = max((len(f"{t:g}".partition(".")[2]) for t in ticks), default=0)
    return f"{value:,.{decimals}f}"


# Room above the plot for the value axis's title, so it never sits on the top tick.
PLOT_TOP = 22


@dataclass(frozen=True)
class Bar:
    label: str
    count: int
    x: float
    y: float
    width: float
    height: float


@dataclass(frozen=True)
class Tick:
    label: str
    y: float


@dataclass(frozen=True)
class Histogram:
    title: str
    bars: list[Bar]
    total: int
    # What the bars count and what they are counted by, written beside the axes.
    y_label: str = "count"
    x_label: str = ""
    ticks: list[Tick] = None
    width: int = 600
    height: int = 180
    # Room for the count axis on the left and the labels below.
    left: int = 56
    bottom: int = 34

    @property
    def baseline(self) -> float:
        return self.height - self.bottom


def histogram(
    title, queryset, field, *, low: float, high: float, bins: int, x_label="", y_label="count"
) -> Histogram:
    """Counts of ``field`` in ``bins`` equal bins over [low, high), counted by PostgreSQL."""
    bucket = Func(
        F(field),
        Value(low, output_field=FloatField()),
        Value(high, output_field=FloatField()),
        Value(bins),
        function="width_bucket",
        output_field=IntegerField(),
    )
    counts = dict.fromkeys(range(1, bins + 2), 0)
    rows = queryset.exclude(**{f"{field}__isnull": True}).annotate(bucket=bucket)
    for row in rows.values("bucket").annotate(n=Count("*")).order_by():
        # width_bucket puts high itself (a perfect 100) past the last bin; keep it in the last.
        counts[min(max(row["bucket"], 1), bins)] += row["n"]
    heights = [counts[b] for b in range(1, bins + 1)]
    labels = [f"{low + (high - low) * b / bins:g}" for b in range(bins)]
    return bar_chart(title, heights, labels, x_label=x_label, y_label=y_label)


def bar_chart(title, counts, labels, *, x_label="", y_label="count") -> Histogram:
    """Bars of ``counts`` above ``labels``, on a count axis marked in round whole numbers."""
    steps = [t for t in nice_ticks(0, max(counts, default=0) or 1, most=4) if t == int(t)]
    tallest = steps[-1]
    chart = Histogram(
        title=title, bars=[], total=sum(counts), x_label=x_label, y_label=y_label, ticks=[]
    )
    plot_height = chart.baseline - PLOT_TOP
    for value in steps:
        chart.ticks.append(Tick(f"{int(value):,}", chart.baseline - plot_height * value / tallest))
    width = (chart.width - chart.left) / max(len(counts), 1)
    for i, (count, label) in enumerate(zip(counts, labels, strict=True)):
        height = plot_height * count / tallest
        x = chart.left + i * width
        chart.bars.append(Bar(label, count, x, chart.baseline - height, width - 2, height))
    return chart


@dataclass(frozen=True)
class GroupedBars:
    title: str
    groups: list[tuple[str, list[Bar]]]
    series: list[str]
    ticks: list[Tick]
    y_label: str = ""
    # No value at all: the template says so in words instead of drawing an empty box.
    empty: bool = False
    # The y of value 0 when the axis goes below it, else None (zero is the baseline).
    zero: float | None = None
    width: int = 600
    height: int = 200
    left: int = 56
    bottom: int = 20

    @property
    def baseline(self) -> float:
        return self.height - self.bottom


def grouped_bars(
    title,
    labels,
    series: dict[str, list[float | None]],
    *,
    top=1.0,
    value_format="{:.3f}",
    y_label="",
) -> GroupedBars:
    """One group of bars per label, one bar per series (None draws nothing), on a value axis
    of round ticks from 0 (or below it, down to the lowest value: a chance-corrected agreement
    or a correlation can be negative) up to ``top``; each bar stands on zero, up or down, with
    a line drawn at zero when the axis crosses it."""
    values = [v for column in series.values() for v in column if v is not None]
    steps = nice_ticks(min([0.0, *values]), top, most=5)
    low, top = steps[0], steps[-1]
    chart = GroupedBars(
        title=title, groups=[], series=list(series), ticks=[], y_label=y_label, empty=not values
    )
    plot_height = chart.baseline - PLOT_TOP

    def y_of(value):
        value = min(max(value, low), top)
        return chart.baseline - plot_height * (value - low) / (top - low)

    for value in steps:
        chart.ticks.append(Tick(tick_label(value, steps), y_of(value)))
    if low < 0:
        chart = replace(chart, zero=y_of(0))
    group_width = (chart.width - chart.left) / max(len(labels), 1)
    bar_width = (group_width - 8) / max(len(series), 1)
    for g, label in enumerate(labels):
        bars = []
        for s, values in enumerate(series.values()):
            value = values[g]
            end = y_of(0) if value is None else y_of(value)
            bars.append(
                Bar(
                    label=f"{label} {list(series)[s]}: "
                    + ("—" if value is None else value_format.format(value)),
                    count=0,
                    x=chart.left + g * group_width + 4 + s * bar_width,
                    y=min(end, y_of(0)),
                    width=bar_width - 1,
                    height=abs(y_of(0) - end),
                )
            )
        chart.groups.append((label, bars))
    return chart


@dataclass(frozen=True)
class Point:
    label: str
    x: float
    y: float
    # The spread drawn around the point (y of its low and high ends), if any.
    low: float | None = None
    high: float | None = None


@dataclass(frozen=True)
class Lines:
    title: str
    series: list[tuple[str, list[Point]]]
    x_labels: list[tuple[str, float]]
    ticks: list[Tick]
    x_label: str = ""
    y_label: str = ""
    # The y of value 0 when the axis crosses it (a correlation's sign), else None.
    zero: float | None = None
    empty: bool = False
    width: int = 600
    height: int = 220
    left: int = 56
    bottom: int = 34

    @property
    def baseline(self) -> float:
        return self.height - self.bottom


def line_chart(
    title,
    labels,
    series: dict[str, list[tuple[float | None, float | None]]],
    *,
    low=0.0,
    high=1.0,
    x_label="",
    y_label="",
    value_format="{:.3f}",
) -> Lines:
    """One line per series over evenly spaced ``labels``; each value is (y, spread) with the
    spread drawn as a bar of ± spread (None draws nothing), on an axis from low to high widened
    to round ticks, with a line at zero when the axis crosses it."""
    steps = nice_ticks(low, high)
    low, high = steps[0], steps[-1]
    chart = Lines(
        title=title,
        series=[],
        x_labels=[],
        ticks=[],
        x_label=x_label,
        y_label=y_label,
        empty=not any(v is not None for values in series.values() for v, _ in values),
    )
    plot_height = chart.baseline - PLOT_TOP
    step = (chart.width - chart.left - 20) / max(len(labels) - 1, 1)

    def y_of(value):
        value = min(max(value, low), high)
        return chart.baseline - plot_height * (value - low) / (high - low)

    for value in steps:
        chart.ticks.append(Tick(tick_label(value, steps), y_of(value)))
    if low < 0 < high:
        chart = replace(chart, zero=y_of(0))
    for i, label in enumerate(labels):
        chart.x_labels.append((label, chart.left + 10 + i * step))
    for name, values in series.items():
        points = []
        for (label, x), (value, spread) in zip(chart.x_labels, values, strict=True):
            if value is None:
                continue
            shown = f"{name}, {label}: {value_format.format(value)}"
            if spread:
                shown += f" ± {value_format.format(spread)}"
            points.append(
                Point(
                    shown,
                    x,
                    y_of(value),
                    None if spread is None else y_of(value - spread),
                    None if spread is None else y_of(value + spread),
                )
            )
        chart.series.append((name, points))
    return chart


@dataclass(frozen=True)
class Estimate:
    """One row of a forest plot: a difference and its interval, in chart coordinates."""

    label: str
    # Said on hover and to screen readers: the figures as written in the table.
    text: str
    y: float
    x: float
    low: float
    high: float


@dataclass(frozen=True)
class Forest:
    title: str
    rows: list[Estimate]
    # The horizontal axis, (label, x) at each round tick.
    x_ticks: list[tuple[str, float]]
    zero: float
    x_label: str = ""
    empty: bool = False
    width: int = 600
    row_height: int = 24
    # Room for the rows' labels on the left, and the axis with its ticks below.
    left: int = 170
    right: int = 16
    bottom: int = 34

    @property
    def height(self) -> int:
        return PLOT_TOP + self.row_height * max(len(self.rows), 1) + self.bottom

    @property
    def baseline(self) -> float:
        return self.height - self.bottom

    @property
    def plot_right(self) -> int:
        return self.width - self.right


# A row's label is cut to this many characters (the whole of it is in the row's title).
FOREST_LABEL = 26


def forest_plot(
    title,
    rows: list[tuple[str, float | None, float | None, float | None]],
    *,
    x_label="",
    value_format="{:.2f}",
) -> Forest:
    """A forest plot: each row's (label, difference, low, high) as a point on the line of its
    interval, on one horizontal axis of round ticks that always takes in zero, drawn as a line
    (no difference) so a reader sees at once which intervals cross it. A row with no
    difference is left out."""
    shown = [row for row in rows if row[1] is not None]
    values = [v for _, *figures in shown for v in figures if v is not None]
    steps = nice_ticks(min([0.0, *values]), max([0.0, *values]))
    low, high = steps[0], steps[-1]
    chart = Forest(title=title, rows=[], x_ticks=[], zero=0, x_label=x_label, empty=not shown)
    plot_width = chart.plot_right - chart.left

    def x_of(value):
        return chart.left + plot_width * (value - low) / (high - low)

    chart = replace(
        chart,
        x_ticks=[(tick_label(value, steps), x_of(value)) for value in steps],
        zero=x_of(0),
    )
    for i, (label, difference, interval_low, interval_high) in enumerate(shown):
        interval_low = difference if interval_low is None else interval_low
        interval_high = difference if interval_high is None else interval_high
        text = (
            f"{label}: {value_format.format(difference)} "
            f"[{value_format.format(interval_low)}, {value_format.format(interval_high)}]"
        )
        short = label if len(label) <= FOREST_LABEL else label[: FOREST_LABEL - 1] + "…"
        chart.rows.append(
            Estimate(
                label=short,
                text=text,
                y=PLOT_TOP + chart.row_height * (i + 0.5),
                x=x_of(difference),
                low=x_of(interval_low),
                high=x_of(interval_high),
            )
        )
    return chart
