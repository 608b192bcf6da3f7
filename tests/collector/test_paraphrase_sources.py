"""Choosing sentences for direct paraphrasing: from the corpus (seeded, one per segment, Tier 2
or one language on request) or from a file; bad input is refused with its line and stores
nothing."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import IntegrityError, transaction
from django.urls import reverse

from collector import services
from collector.models import Description, ParaphraseSource
from crowd.models import Hit, HitType, Tier
from tests.factories import make_description, make_segment, make_staff, make_worker

pytestmark = pytest.mark.django_db


def corpus(segments=6):
    """Segments each with accepted Tier-1 and Tier-2 English descriptions, a French one and a
    rejected Tier-2 one."""
    for n in range(segments):
        segment = make_segment()
        make_description(segment, f"A man plays guitar {n}.", tier=Tier.ONE)
        make_description(segment, f"Someone strums a guitar {n}.", tier=Tier.TWO)
        make_description(segment, f"Un homme joue de la guitare {n}.", language="fr")
        make_description(
            segment, f"Nothing to see {n}.", status=Description.Status.REJECTED, tier=Tier.TWO
        )


def draw(**options):
    """The descriptions a draw would choose, leaving nothing stored."""
    with transaction.atomic():
        chosen = services.paraphrase_sources_from_corpus(**options).sources
        transaction.set_rollback(True)
    return [source.description_id for source in chosen]


def test_a_corpus_draw_takes_one_accepted_description_per_segment_and_offers_it():
    corpus(6)
    sources = services.paraphrase_sources_from_corpus(count=4, seed=3).sources
    assert len(sources) == 4
    assert len({source.segment_id for source in sources}) == 4
    for source in sources:
        assert source.origin == ParaphraseSource.Origin.CORPUS
        assert source.description.status == Description.Status.ACCEPTED
        assert (source.text, source.language, source.segment_id) == (
            source.description.text,
            source.description.language,
            source.description.segment_id,
        )
        hits = Hit.objects.filter(item_id=source.item_id, hit_type__kind=HitType.Kind.PARAPHRASE)
        assert sorted(hits.values_list("tier", "max_assignments")) == [(1, 2), (2, 2)]


def test_the_same_seed_draws_the_same_sentences_and_another_seed_others():
    corpus(12)
    assert draw(count=4, seed=7) == draw(count=4, seed=7)
    assert draw(count=4, seed=7) != draw(count=4, seed=8)


def test_a_draw_can_keep_to_tier_two_and_to_one_language():
    corpus(5)
    french = draw(count=5, seed=1, language="fr")
    assert len(french) == 5
    assert set(Description.objects.filter(pk__in=french).values_list("language", flat=True)) == {
        "fr"
    }
    sources = services.paraphrase_sources_from_corpus(
        count=5, seed=1, tier2_only=True, language="en"
    ).sources
    assert len(sources) == 5
    assert {(s.description.tier, s.language, s.description.status) for s in sources} == {
        (Tier.TWO, "en", Description.Status.ACCEPTED)
    }


def test_drawing_again_passes_over_segments_already_offered_and_stops_when_none_are_left():
    corpus(3)
    first = services.paraphrase_sources_from_corpus(count=2, seed=0).sources
    second = services.paraphrase_sources_from_corpus(count=5, seed=0).sources
    assert len(second) == 1
    assert not {s.segment_id for s in first} & {s.segment_id for s in second}
    assert services.paraphrase_sources_from_corpus(count=5, seed=0).sources == []


def test_a_segment_holds_one_sentence_to_paraphrase_in_the_database():
    corpus(1)
    source = services.paraphrase_sources_from_corpus(count=1).sources[0]
    other = source.segment.descriptions.exclude(pk=source.description_id).first()
    with pytest.raises(IntegrityError), transaction.atomic():
        ParaphraseSource.objects.create(
            origin="corpus",
            text=other.text,
            language="en",
            description=other,
            segment_id=other.segment_id,
        )


def test_an_uploaded_sentence_has_no_segment_in_the_database():
    corpus(1)
    description = Description.objects.first()
    with pytest.raises(IntegrityError), transaction.atomic():
        ParaphraseSource.objects.create(
            origin="upload", text="A cat sleeps.", language="en", description=description
        )


@pytest.mark.parametrize("count", [0, 10_001])
def test_asking_for_no_sentences_or_too_many_at_once_is_refused(count):
    with pytest.raises(services.WorkRefused, match="between 1 and 10,000"):
        services.paraphrase_sources_from_corpus(count=count)


def test_a_file_of_more_sentences_than_one_choice_offers_is_refused():
    content = "".join(f"A man plays guitar {n}.\n" for n in range(10_001))
    with pytest.raises(services.WorkRefused, match="10,001 sentences; offer at most 10,000"):
        services.paraphrase_sources_from_file(content=content.encode(), name="s.txt", language="en")
    assert not ParaphraseSource.objects.exists()


def test_a_text_file_offers_one_sentence_per_line_skipping_blank_lines_and_repeats():
    content = "A man is slicing a tomato.\n\nA dog catches a ball.\nA man is slicing a tomato.\n"
    choice = services.paraphrase_sources_from_file(
        content=content.encode(), name="s.txt", language="en"
    )
    assert [s.text for s in choice.sources] == [
        "A man is slicing a tomato.",
        "A dog catches a ball.",
    ]
    assert {s.origin for s in choice.sources} == {ParaphraseSource.Origin.UPLOAD}
    assert Hit.objects.filter(hit_type__kind=HitType.Kind.PARAPHRASE).count() == 4
    again = services.paraphrase_sources_from_file(
        content=content.encode(), name="s.txt", language="en"
    )
    assert (again.sources, again.already_offered) == ([], 2)
    assert ParaphraseSource.objects.count() == 2


def test_a_csv_file_gives_each_sentence_its_language():
    content = "text,language\nA woman rides a horse.,en\nUne femme monte à cheval.,fr\n"
    choice = services.paraphrase_sources_from_file(content=content.encode(), name="s.csv")
    assert [(s.text, s.language) for s in choice.sources] == [
        ("A woman rides a horse.", "en"),
        ("Une femme monte à cheval.", "fr"),
    ]


@pytest.mark.parametrize(
    "name, content, language, message",
    [
        ("s.txt", "A cat sleeps.\nA man runs. A dog follows.\n", "en", "Line 2: Write exactly one"),
        ("s.txt", 'A cat sleeps.\n=HYPERLINK("x")\n', "en", "Line 2: Start your sentence"),
        ("s.txt", "A cat sleeps.\n<b>A dog.</b>\n", "en", "Line 2: Write plain text"),
        ("s.txt", "A cat sleeps.\n", "", "Say which language"),
        ("s.txt", "A cat sleeps.\n", "42", "The language given"),
        ("s.txt", "\n\n", "en", "no sentences"),
        ("s.csv", "sentence\nA cat sleeps.\n", "en", "Line 1: the header has no “text”"),
        ("s.csv", "text\nA cat sleeps.\n", "", "no “language” column"),
        ("s.csv", "text,language\nA cat sleeps.,en\n,en\n", "", "Line 3: the sentence is empty"),
        ("s.csv", "text,language\nA cat sleeps.,en\nA dog.,e1\n", "", "Line 3: “e1”"),
        ("s.csv", "text,language\nA cat sleeps.,en,x\n", "", "Line 2: more fields"),
    ],
)
def test_a_bad_file_is_refused_with_its_line_and_stores_nothing(name, content, language, message):
    with pytest.raises(services.WorkRefused, match=message):
        services.paraphrase_sources_from_file(
            content=content.encode(), name=name, language=language
        )
    assert not ParaphraseSource.objects.exists()
    assert not Hit.objects.filter(hit_type__kind=HitType.Kind.PARAPHRASE).exists()


def test_a_file_that_is_not_utf8_is_refused():
    with pytest.raises(services.WorkRefused, match="not UTF-8"):
        services.paraphrase_sources_from_file(
            content="Un café.".encode("latin-1"), name="s.txt", language="fr"
        )


def test_the_command_draws_from_the_corpus_and_says_how_many():
    corpus(3)
    out = StringIO()
    call_command("choose_paraphrase_sentences", "--count", "5", "--seed", "2", stdout=out)
    assert "Offered 3 sentences" in out.getvalue()
    assert "Only 3 segments" in out.getvalue()
    assert ParaphraseSource.objects.count() == 3


def test_the_command_reads_a_file_and_refuses_a_bad_one_naming_the_line(tmp_path):
    good = tmp_path / "good.txt"
    good.write_text("A cat sleeps.\nA dog barks.\n")
    out = StringIO()
    call_command("choose_paraphrase_sentences", "--file", str(good), "--language", "en", stdout=out)
    assert "Offered 2 sentences" in out.getvalue()
    bad = tmp_path / "bad.txt"
    bad.write_text("A bird sings.\nTwo. Sentences here.\n")
    with pytest.raises(CommandError, match="Line 2:.*Nothing was stored"):
        call_command("choose_paraphrase_sentences", "--file", str(bad), "--language", "en")
    assert ParaphraseSource.objects.count() == 2
    with pytest.raises(CommandError, match="not from a file"):
        call_command("choose_paraphrase_sentences", "--file", str(good), "--tier2-only")
    with pytest.raises(CommandError, match="No such file"):
        call_command("choose_paraphrase_sentences", "--file", str(tmp_path / "none.txt"))


def test_staff_choose_from_the_corpus_on_the_page(client):
    corpus(3)
    client.force_login(make_staff())
    url = reverse("collector:paraphrase_sources")
    response = client.post(
        url, {"from": "corpus", "count": "2", "seed": "0", "language": "en"}, follow=True
    )
    assert "2 sentences offered for paraphrasing" in response.content.decode()
    assert ParaphraseSource.objects.count() == 2


def test_staff_upload_a_file_and_a_bad_one_is_refused_with_its_line(client):
    client.force_login(make_staff())
    url = reverse("collector:paraphrase_sources")
    bad = StringIO("A cat sleeps.\n<i>A dog.</i>\n")
    bad.name = "bad.txt"
    response = client.post(url, {"from": "file", "file": bad, "language": "en"}, follow=True)
    page = response.content.decode()
    assert "Nothing was stored. Line 2: Write plain text" in page
    assert not ParaphraseSource.objects.exists()
    good = StringIO("A cat sleeps.\n")
    good.name = "good.txt"
    response = client.post(url, {"from": "file", "file": good, "language": "en"}, follow=True)
    assert "1 sentence offered" in response.content.decode()


def test_only_staff_may_choose_sentences(client):
    client.force_login(make_worker().user)
    response = client.post(
        reverse("collector:paraphrase_sources"), {"from": "corpus", "count": "1"}
    )
    assert response.status_code == 403
    assert not ParaphraseSource.objects.exists()
