"""The baseline paraphraser: table substitutions ranked by a trigram model of the corpus."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from paracrowd_metrics.meteor import ParaphraseTable
from research.paraphraser import TrigramModel, paraphrase


def words(text: str) -> list[str]:
    return text.split()


CORPUS = [
    s.split() for s in ["a man slices a tomato", "a man is slicing a tomato", "a guy cuts bread"]
]


@pytest.fixture
def table():
    table = ParaphraseTable()
    table.add("is cutting", "slices", 0.5)
    table.add("is cutting", "cuts potatoes", 0.5)
    table.add("guy", "man", 0.4)
    return table


def test_the_most_fluent_substitution_wins(table):
    model = TrigramModel(CORPUS)
    best = paraphrase(words("a guy is cutting a tomato"), table=table, model=model, count=3)
    assert best[0].text == "a man slices a tomato"
    assert all(rewrite.substitutions >= 1 for rewrite in best)
    assert len({rewrite.text for rewrite in best}) == len(best)


def test_a_sentence_the_table_cannot_change_gets_no_rewrite(table):
    assert paraphrase(words("the sun sets"), table=table, model=TrigramModel(CORPUS)) == []


def test_unseen_words_cost_more_than_seen_ones():
    model = TrigramModel(CORPUS)
    assert model.score(words("a man slices a tomato")) > model.score(words("a man slices a zebra"))


def test_the_command_prints_pairs_score_system_reads(tmp_path, table):
    table.save(tmp_path / "table.gz")
    with (tmp_path / "clusters.jsonl").open("w") as file:
        record = {
            "segment": {"id": 1},
            "language": "en",
            "descriptions": [{"text": " ".join(s)} for s in CORPUS],
        }
        file.write(json.dumps(record) + "\n")
    (tmp_path / "sources.txt").write_text("a guy is cutting a tomato\nthe sun sets\n")
    out, err = StringIO(), StringIO()
    call_command(
        "paraphrase",
        "--sources",
        str(tmp_path / "sources.txt"),
        "--table",
        str(tmp_path / "table.gz"),
        "--corpus",
        str(tmp_path / "clusters.jsonl"),
        "--splits",
        "all",
        stdout=out,
        stderr=err,
    )
    assert out.getvalue().splitlines()[2:] == [
        "source\toutput",
        "a guy is cutting a tomato\ta man slices a tomato",
    ]
    assert "No paraphrase in the table for: the sun sets" in err.getvalue()


def test_it_needs_a_corpus_for_its_model(tmp_path, table):
    table.save(tmp_path / "table.gz")
    with pytest.raises(CommandError, match="--corpus CLUSTERS.jsonl or --from-db"):
        call_command("paraphrase", "a guy", "--table", str(tmp_path / "table.gz"))
