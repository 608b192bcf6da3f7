"""Small server-drawn SVG charts: histograms counted by PostgreSQL, and grouped bars. Any app
may draw them; the templates are charts/histogram.html and charts/grouped_bars.html."""

from dataclasses import dataclass

from django.db.models import Count, F, FloatField, Func, IntegerField, Value


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
    left: int = 48
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
    """Bars of ``counts`` above ``labels``, on a count axis marked at 0, half and the top."""
    tallest = max(counts, default=0) or 1
    chart = Histogram(
        title=title, bars=[], total=sum(counts), x_label=x_label, y_label=y_label, ticks=[]
    )
    plot_height = chart.baseline - 8
    for value in sorted({0, tallest // 2, tallest}):
        chart.ticks.append(Tick(f"{value:,}", chart.baseline - plot_height * value / tallest))
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
    width: int = 600
    height: int = 180


def grouped_bars(
    title, labels, series: dict[str, list[float | None]], *, top=1.0, value_format="{:.3f}"
) -> GroupedBars:
    """One group of bars per label, one bar per series (values 0..top; None draws nothing)."""
    chart = GroupedBars(title=title, groups=[], series=list(series))
    group_width = chart.width / max(len(labels), 1)
    bar_width = (group_width - 8) / max(len(series), 1)
    plot_height = chart.height - 20
    for g, label in enumerate(labels):
        bars = []
        for s, values in enumerate(series.values()):
            value = values[g]
            height = 0 if value is None else plot_height * max(0.0, min(value, top)) / top
            bars.append(
                Bar(
                    label=f"{label} {list(series)[s]}: "
                    + ("—" if value is None else value_format.format(value)),
                    count=0,
                    x=g * group_width + 4 + s * bar_width,
                    y=plot_height - height,
                    width=bar_width - 1,
                    height=height,
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
    width: int = 600
    height: int = 220
    left: int = 48
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
    spread drawn as a bar of ± spread (None draws nothing), on an axis from low to high."""
    top = 8
    chart = Lines(title=title, series=[], x_labels=[], ticks=[], x_label=x_label, y_label=y_label)
    plot_height = chart.baseline - top
    step = (chart.width - chart.left - 20) / max(len(labels) - 1, 1)

    def y_of(value):
        value = min(max(value, low), high)
        return chart.baseline - plot_height * (value - low) / (high - low)

    for value in (low, (low + high) / 2, high):
        chart.ticks.append(Tick(f"{value:g}", y_of(value)))
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
