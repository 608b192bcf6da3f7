"""Making rating batches from the three origins, and every refusal (nothing stored half)."""

import pytest
from django.core.management import CommandError, call_command
from django.db import IntegrityError, transaction

from collector.models import Description
from crowd.models import Hit, HitType, Tier
from research.models import Rating, RatingBatch, RatingItem, SystemScoreJob
from research.ratings.batches import (
    MAX_ITEMS,
    BatchRefused,
    items_from_corpus,
    items_from_csv,
    items_from_system,
)
from tests.factories import make_description, make_researcher, make_segment
from tests.research.ratings import make_batch, rate_next

pytestmark = pytest.mark.django_db


def cluster(*texts, language="en"):
    segment = make_segment()
    for text in texts:
        make_description(segment, text, language=language)
    return segment


def test_each_item_is_offered_once_in_tier_one_to_the_batchs_number_of_judges():
    batch = make_batch(judges=3)
    hits = Hit.objects.filter(hit_type__kind=HitType.Kind.RATING)
    assert hits.count() == 3 == batch.items.count()
    assert set(hits.values_list("tier", "max_assignments")) == {(Tier.ONE, 3)}


def test_the_database_keeps_ratings_within_one_to_four_and_one_per_worker():
    from tests.factories import make_worker

    make_batch(pairs=[("a b c", "c b a")])
    worker = make_worker()
    rating = rate_next(worker)
    for field, value in (("semantic", 0), ("overall", 5)):
        with pytest.raises(IntegrityError), transaction.atomic():
            Rating.objects.filter(pk=rating.pk).update(**{field: value})
    with pytest.raises(IntegrityError), transaction.atomic():
        Rating.objects.create(
            item=rating.item,
            assignment=rating.assignment,
            worker=worker,
            semantic=1,
            dissimilarity=1,
            overall=1,
        )


def test_an_item_needs_both_texts_in_the_database():
    batch = make_batch()
    with pytest.raises(IntegrityError), transaction.atomic():
        RatingItem.objects.create(batch=batch, source="", candidate="x")


def test_a_csv_gives_its_rows_with_their_clusters():
    guitar = cluster("A man plays a guitar.", "Someone strums a guitar.")
    text = (
        "source,candidate,cluster\n"
        f"A man plays a guitar.,A guy plays guitar.,{guitar.pk}\n"
        '"Hello, world.",Hi world.,\n'
    )
    items = items_from_csv(text, language="en")
    assert [(i.source, i.candidate, i.segment_id) for i in items] == [
        ("A man plays a guitar.", "A guy plays guitar.", guitar.pk),
        ("Hello, world.", "Hi world.", None),
    ]


@pytest.mark.parametrize(
    "text, message",
    [
        ("source,output\na,b\n", "f.csv:1: the header must name the columns source and candidate"),
        ("source,candidate\na,b\n , c\n", "f.csv:3: the source is empty"),
        ("source,candidate\na,\n", "f.csv:2: the candidate is empty"),
        ("source,candidate,cluster\na,b,999999\n", "f.csv:2: cluster 999999 does not exist"),
        ("source,candidate,cluster\na,b,x\n", "f.csv:2: cluster 'x' is not a segment id"),
        ("source,candidate,language\na,b,en\nc,d,de\n", "f.csv:3: the row is in 'de'"),
        ("source,candidate\na,b,c\n", "f.csv:2: more fields than the header names"),
    ],
)
def test_a_bad_csv_is_refused_naming_the_line(text, message):
    with pytest.raises(BatchRefused) as refusal:
        items_from_csv(text, language="en", name="f.csv")
    assert message in str(refusal.value)


def test_a_cluster_without_descriptions_in_the_batchs_language_is_refused():
    german = cluster("Ein Mann spielt Gitarre.", "Jemand spielt Gitarre.", language="de")
    with pytest.raises(BatchRefused, match=f"f.csv:2: cluster {german.pk} has no descriptions"):
        items_from_csv(f"source,candidate,cluster\na,b,{german.pk}\n", language="en", name="f.csv")


def test_too_many_rows_are_refused_naming_the_first_line_too_many():
    rows = "".join(f"s{n},c{n}\n" for n in range(MAX_ITEMS + 1))
    with pytest.raises(BatchRefused, match=f"f.csv:{MAX_ITEMS + 2}: a batch takes at most"):
        items_from_csv("source,candidate\n" + rows, language="en", name="f.csv")


def test_corpus_pairs_are_two_descriptions_of_one_cluster_drawn_with_the_seed():
    guitar = cluster("A man plays a guitar.", "Someone strums a guitar.", "A guitar is played.")
    onion = cluster("A woman slices an onion.", "An onion is cut.")
    cluster("Only one description here.")
    first = items_from_corpus(language="en", count=6, seed=7)
    assert first == items_from_corpus(language="en", count=6, seed=7)
    texts = {
        guitar.pk: set(guitar.descriptions.values_list("text", flat=True)),
        onion.pk: set(onion.descriptions.values_list("text", flat=True)),
    }
    assert first
    for item in first:
        assert item.source != item.candidate
        assert {item.source, item.candidate} <= texts[item.segment_id]
    assert len({(i.segment_id, i.source, i.candidate) for i in first}) == len(first)


def test_corpus_pairs_draw_accepted_descriptions_only():
    segment = cluster("A man plays a guitar.", "Someone strums a guitar.")
    make_description(segment, "Pending review.", status=Description.Status.PENDING)
    make_description(segment, "Turned down.", status=Description.Status.REJECTED)
    drawn = items_from_corpus(language="en", count=20, seed=3)
    texts = {text for item in drawn for text in (item.source, item.candidate)}
    assert texts == {"A man plays a guitar.", "Someone strums a guitar."}


def test_a_corpus_without_pairs_in_the_language_is_refused():
    cluster("Ein Mann spielt Gitarre.", "Jemand spielt Gitarre.", language="de")
    with pytest.raises(BatchRefused, match="No cluster in 'en'"):
        items_from_corpus(language="en", count=5)


def scoring_job(pairs, name="sys-a"):
    return SystemScoreJob.objects.create(
        requested_by=make_researcher(), systems=[{"name": name, "pairs": pairs}], parameters={}
    )


def test_a_systems_outputs_become_items_with_their_sources_clusters():
    guitar = cluster("A man plays a guitar.", "Someone strums a guitar.")
    job = scoring_job(
        [["A man plays a guitar.", "A guy plays guitar.", None], ["Not in the corpus.", "x", None]]
    )
    items = items_from_system(job=job, system="sys-a", language="en")
    assert [(i.source, i.candidate, i.segment_id) for i in items] == [
        ("A man plays a guitar.", "A guy plays guitar.", guitar.pk),
        ("Not in the corpus.", "x", None),
    ]


def test_a_system_refuses_an_unknown_name_and_a_source_in_another_language():
    cluster("Ein Mann spielt Gitarre.", "Jemand spielt Gitarre.", language="de")
    job = scoring_job([["Ein Mann spielt Gitarre.", "Ein Typ spielt Gitarre.", None]])
    with pytest.raises(BatchRefused, match="has no system 'nope'"):
        items_from_system(job=job, system="nope", language="en")
    with pytest.raises(BatchRefused, match="pair 1's source is a description in 'de'"):
        items_from_system(job=job, system="sys-a", language="en")


@pytest.mark.parametrize(
    "change, message",
    [
        ({"name": " "}, "Give the batch a name"),
        ({"judges": 0}, "between 1 and 10"),
        ({"pairs": []}, "nothing to rate"),
    ],
)
def test_a_batch_that_cannot_be_made_stores_nothing(change, message):
    with pytest.raises(BatchRefused, match=message):
        make_batch(**change)
    assert not RatingBatch.objects.exists() and not Hit.objects.exists()


def test_the_command_makes_a_batch_from_each_origin(tmp_path, capsys):
    researcher = make_researcher()
    guitar = cluster("A man plays a guitar.", "Someone strums a guitar.")
    upload = tmp_path / "items.csv"
    upload.write_text(f"source,candidate,cluster\nA man plays a guitar.,A guy plays.,{guitar.pk}\n")
    job = scoring_job([["A man plays a guitar.", "A guy plays guitar.", None]])
    by = ["--by", researcher.username]
    call_command("rating_batch", "--csv", str(upload), "--name", "upload", *by)
    call_command("rating_batch", "--corpus", "2", "--seed", "3", "--name", "corpus", *by)
    call_command(
        "rating_batch", "--job", str(job.pk), "--job-system", "sys-a", "--name", "sys", *by
    )
    assert "1 item offered to 2 judges each" in capsys.readouterr().out
    batches = {b.name: b for b in RatingBatch.objects.all()}
    assert (batches["upload"].origin, batches["upload"].items.get().segment_id) == (
        "upload",
        guitar.pk,
    )
    assert (batches["corpus"].origin, batches["corpus"].system) == ("corpus", "human")
    assert (batches["sys"].origin, batches["sys"].system) == ("system", "sys-a")


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["--name", "x"], "exactly one of --csv, --corpus and --job"),
        (["--corpus", "2", "--csv", "f.csv", "--name", "x"], "exactly one of"),
        (["--corpus", "2"], "--name"),
        (["--corpus", "2", "--name", "x", "--by", "nobody"], "no user 'nobody'"),
        (["--job", "999999", "--name", "x"], "no scoring job 999999"),
        (["--corpus", "2", "--name", "x"], "No cluster in 'en'"),
        (["--export", "999999"], "no rating batch 999999"),
    ],
)
def test_the_command_refuses_bad_options_by_name(arguments, message):
    researcher = make_researcher()
    if "--by" not in arguments:
        arguments = [*arguments, "--by", researcher.username]
    with pytest.raises(CommandError, match=message):
        call_command("rating_batch", *arguments)
    assert not RatingBatch.objects.exists()


def test_the_command_refuses_a_bad_csv_naming_file_and_line(tmp_path):
    upload = tmp_path / "bad.csv"
    upload.write_text("source,candidate\nfine,fine too\n,empty source\n")
    with pytest.raises(CommandError, match=r"bad.csv:3: the source is empty"):
        call_command(
            "rating_batch", "--csv", str(upload), "--name", "x", "--by", make_researcher().username
        )
    assert not RatingBatch.objects.exists() and not RatingItem.objects.exists()
