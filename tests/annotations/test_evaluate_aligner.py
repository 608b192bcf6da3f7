"""evaluate_aligner scores the pre-aligner on gold in every format import_alignments reads."""

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotations import prealigner
from annotations.alignment_files import read_annotator_file
from annotations.models import AlignerModel, Alignment, SentencePair
from paracrowd_metrics.alignment import Aligner, write_edinburgh, write_multimwa, write_naacl
from paracrowd_metrics.alignment.evaluation import evaluate_prealigner
from paracrowd_metrics.alignment.supervised import SupervisedAligner

DATA = Path(__file__).parents[1] / "data" / "alignments"
VIDEO_GOLD = DATA / "video_gold"
# Pairs 1–8 train, 9–12 are the gold the tests score: never the same pair in both.
TRAINED = 8


def video_pairs():
    return read_annotator_file(
        VIDEO_GOLD / "gold.pharaoh", "pharaoh", VIDEO_GOLD / "source.txt", VIDEO_GOLD / "target.txt"
    )


@pytest.fixture
def files(tmp_path):
    """The video gold split in two, the training half as Pharaoh (tokens beside it), the held-out
    half in every format."""
    pairs = video_pairs()
    training, held_out = pairs[:TRAINED], pairs[TRAINED:]
    train = tmp_path / "train"
    train.mkdir()
    (train / "source.txt").write_text("".join(" ".join(p.source) + "\n" for p in training))
    (train / "target.txt").write_text("".join(" ".join(p.target) + "\n" for p in training))
    (train / "gold.pharaoh").write_text("".join(" ".join(_pharaoh(p)) + "\n" for p in training))
    test = tmp_path / "test"
    test.mkdir()
    (test / "source.txt").write_text("".join(" ".join(p.source) + "\n" for p in held_out))
    (test / "target.txt").write_text("".join(" ".join(p.target) + "\n" for p in held_out))
    (test / "gold.pharaoh").write_text("".join(" ".join(_pharaoh(p)) + "\n" for p in held_out))
    (test / "gold.naacl").write_text(
        write_naacl({n: p.alignment for n, p in enumerate(held_out, 1)})
    )
    sure, possible = write_edinburgh(held_out)
    (test / "gold.sure.json").write_text(sure)
    (test / "gold.sure+poss.json").write_text(possible)
    (test / "gold.tsv").write_text(write_multimwa(held_out))
    return {"train": train / "gold.pharaoh", "test": test}


def _pharaoh(pair):
    return [
        f"{i}{'-' if (i, j) in pair.alignment.sure else 'p'}{j}"
        for i, j in sorted(pair.alignment.possible)
    ]


def evaluate(*args) -> tuple[str, dict]:
    out = StringIO()
    call_command("evaluate_aligner", *map(str, args), "--json", stdout=out, stderr=StringIO())
    text = out.getvalue()
    return text, json.loads(text.strip().splitlines()[-1])


def assert_report_shape(report: dict, pairs: int) -> None:
    assert report["pairs"] == pairs
    for figures in (report, report["baseline"]):
        for scope in ("all", "non_identical"):
            assert set(figures[scope]) == {"precision", "recall", "f1", "aer"}
            assert all(0 <= value <= 1 for value in figures[scope].values())


@pytest.mark.parametrize(
    "format,gold",
    [
        ("pharaoh", ["gold.pharaoh"]),
        ("naacl", ["gold.naacl"]),
        ("edinburgh", ["gold.sure.json", "gold.sure+poss.json"]),
        ("multimwa", ["gold.tsv"]),
    ],
)
@pytest.mark.django_db
def test_it_trains_on_the_train_gold_and_scores_held_out_gold_in_each_format(files, format, gold):
    text, report = evaluate(
        *(files["test"] / name for name in gold),
        "--format",
        format,
        "--train",
        files["train"],
        "--train-format",
        "pharaoh",
    )
    assert_report_shape(report, 4)
    assert "supervised, trained on 8 --train alignments" in text
    assert "identical words one to one" in text
    # Identical words alone miss every link between different words of these pairs.
    assert report["baseline"]["non_identical"]["recall"] < report["non_identical"]["recall"]
    assert not AlignerModel.objects.exists()  # an evaluation stores nothing


@pytest.mark.django_db
def test_every_format_reads_the_same_gold_to_the_same_figures(files):
    reports = [
        evaluate(
            *(files["test"] / name for name in gold),
            *("--format", format, "--train", files["train"], "--train-format", "pharaoh"),
        )[1]
        for format, gold in [
            ("pharaoh", ["gold.pharaoh"]),
            ("naacl", ["gold.naacl"]),
            ("edinburgh", ["gold.sure.json", "gold.sure+poss.json"]),
            ("multimwa", ["gold.tsv"]),
        ]
    ]
    assert all(report == reports[0] for report in reports)


@pytest.mark.django_db
def test_it_reads_rte_gold_and_trains_on_rte_files(files):
    _, report = evaluate(
        DATA / "pairs_A.align.txt", "--format", "rte", "--train", DATA / "pairs_B.align.txt"
    )
    assert_report_shape(report, 2)


@pytest.mark.django_db
def test_without_train_it_uses_the_sites_supervised_aligner(files, settings):
    settings.ALIGNER_MIN_GOLD_ALIGNMENTS = 8
    settings.PREALIGNER_HELD_OUT_MINIMUM = 4  # the pairs it holds out
    for number, pair in enumerate(video_pairs()[:TRAINED]):
        stored = SentencePair.objects.create(
            origin=SentencePair.Origin.IMPORT,
            import_key=f"video:{number}",
            tokens_a=list(pair.source),
            tokens_b=list(pair.target),
        )
        Alignment.objects.create(
            pair=stored, annotator="A", links=" ".join(_pharaoh(pair)), status="accepted"
        )
    model = prealigner.supervised_aligner_train()
    text, report = evaluate(files["test"] / "gold.pharaoh", "--format", "pharaoh")
    assert f"the site's {model}" in text
    assert_report_shape(report, 4)

    # Gold the site's model learnt from is named as such (not the 4 pairs held out to judge it).
    errors = StringIO()
    call_command(
        "evaluate_aligner", str(files["train"]), "--format", "pharaoh", stdout=StringIO(),
        stderr=errors,
    )  # fmt: skip
    assert "warning: 4 GOLD pairs are also in the gold the site's model learnt from" in (
        errors.getvalue()
    )


@pytest.mark.django_db
def test_it_says_when_the_site_has_no_aligner_good_enough(files):
    with pytest.raises(CommandError, match="No aligner on this site is good enough"):
        evaluate(files["test"] / "gold.pharaoh", "--format", "pharaoh")


@pytest.mark.django_db
def test_bad_gold_gets_a_clear_message(files, tmp_path):
    broken = tmp_path / "broken.pharaoh"
    broken.write_text("0-0 x\n")
    (tmp_path / "source.txt").write_text("a b\n")
    (tmp_path / "target.txt").write_text("a b\n")
    with pytest.raises(CommandError, match="not a Pharaoh link"):
        evaluate(broken, "--format", "pharaoh", "--train", files["train"])
    with pytest.raises(CommandError, match="GOLD2 is only for --format edinburgh"):
        evaluate(broken, broken, "--format", "pharaoh", "--train", files["train"])


@pytest.mark.django_db
def test_it_reads_jacanas_mt_reference_files_by_their_names(files, tmp_path):
    # jacana names them mt-reference.{dev,test}.json (sureAlign and possibleAlign) and
    # mt-reference.{dev,test}.sure+poss.json; these are the video gold under those names.
    pairs = video_pairs()
    jacana = tmp_path / "mt-reference"
    jacana.mkdir()
    for name, part in (("dev", pairs[:TRAINED]), ("test", pairs[TRAINED:])):
        # x.json: sure links in sureAlign, the possible ones in possibleAlign.
        sure, every = (json.loads(text) for text in write_edinburgh(part))
        records = [
            {**sure_record, "possibleAlign": every_record["possibleAlign"]}
            for sure_record, every_record in zip(sure, every, strict=True)
        ]
        (jacana / f"mt-reference.{name}.json").write_text(json.dumps(records))
    (jacana / "mt-reference.test.sure+poss.json").write_text(write_edinburgh(pairs[TRAINED:])[1])
    train = ("--train", files["train"], "--train-format", "pharaoh")
    expected = evaluate(files["test"] / "gold.sure.json", "--format", "edinburgh", *train)[1]

    _, report = evaluate(
        jacana / "mt-reference.test.json",
        "--format",
        "edinburgh",
        "--train",
        jacana / "mt-reference.dev.json",
    )

    assert report == expected


@pytest.mark.django_db
def test_it_saves_the_aligner_it_trained(files, tmp_path):
    saved = tmp_path / "aligner.json"
    text, report = evaluate(
        files["test"] / "gold.pharaoh",
        *("--format", "pharaoh", "--train", files["train"], "--save", saved),
    )

    record = json.loads(saved.read_text())
    aligner = SupervisedAligner.from_dict(
        record["parameters"],
        lexicon=prealigner.site_lexicon(),
        base=Aligner.from_dict(record["base"]),
    )
    gold = read_annotator_file(
        files["test"] / "gold.pharaoh",
        "pharaoh",
        files["test"] / "source.txt",
        files["test"] / "target.txt",
    )
    assert f"Aligner saved to {saved}." in text
    assert record["training_pairs"] == TRAINED
    assert json.loads(json.dumps(evaluate_prealigner(aligner.prealign, gold))) == report


@pytest.mark.django_db
def test_it_refuses_to_save_without_training(files, tmp_path):
    with pytest.raises(CommandError, match="--save writes the aligner --train trains"):
        evaluate(files["test"] / "gold.pharaoh", "--format", "pharaoh", "--save", tmp_path / "a")
