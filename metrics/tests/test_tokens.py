"""Our 13a tokenizer must give sacrebleu's 13a tokens for any text at all."""

from hypothesis import example, given, settings
from hypothesis import strategies as st
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

from paracrowd_metrics.tokens import lowercased_units, sentence_units, tokenize_13a

# What 13a treats specially, in pieces that combine into the awkward cases: numbers with
# points, commas and hyphens, runs of punctuation, entities, the <skipped> tag, line breaks.
PIECES = [
    "a", "A", "man", "Is", "3", "1,000", "2.5", "-", "--", ".", "..", ",", ",,", "'", "!", "?",
    "(", ")", '"', "&", "&amp;", "&quot;", "&lt;", "&gt;", "&AMP;", "<skipped>", "<SKIPPED>",
    "-\n", "\n", "\t", " ", "  ", "\u00a0", "\u3000", "é", "Σ", "ß", "İ", "猫", "😀", "٣", "²",
    "/", "@", "[", "`", "{", "~", "_", "^", "\\", "$", "#", "%", "*", "+", "=", "<", ">", ":",
]  # fmt: skip

piece_text = st.lists(st.sampled_from(PIECES), max_size=20).map("".join)
ascii_text = st.text(st.characters(min_codepoint=0, max_codepoint=127), max_size=40)
any_text = st.text(st.characters(exclude_categories=["Cs"]), max_size=40)


def sacrebleu_tokens(text):
    return Tokenizer13a()(text).split()


@settings(max_examples=1500, deadline=None)
@given(st.one_of(piece_text, piece_text, ascii_text, any_text))
@example("A man is slicing a tomato.")
@example("He paid $1,000.50 for 3-4 apples, then left...")
@example("a.,b,.c ..1,.2-3--4")
def test_our_13a_gives_sacrebleus_tokens_for_any_text(text):
    assert tokenize_13a(text) == sacrebleu_tokens(text)


@settings(max_examples=500, deadline=None)
@given(st.one_of(piece_text, any_text), st.booleans())
def test_sentence_units_give_sacrebleus_13a_tokens_as_typed_and_lowercased(text, lowercase):
    expected = text.lower() if lowercase else text
    assert sentence_units(text, lowercase=lowercase) == sacrebleu_tokens(expected.rstrip())


@settings(max_examples=1000, deadline=None)
@given(
    st.one_of(piece_text, ascii_text, any_text),
    st.sampled_from(["13a", "none", "char", "zh", "intl"]),
    st.booleans(),
)
@example("A man is slicing a tomato.", "13a", False)
@example("&QUOT;A <SKIPPED> man", "13a", False)
@example("ΟΔΟΣ:ΑΒ", "13a", False)
def test_lowercasing_the_units_gives_the_units_of_the_lowercased_text(text, tokenize, keep_spaces):
    keep_spaces = keep_spaces and tokenize == "char"
    units = sentence_units(text, tokenize=tokenize, keep_spaces=keep_spaces)
    assert lowercased_units(
        text, units, tokenize=tokenize, keep_spaces=keep_spaces
    ) == sentence_units(text, tokenize=tokenize, lowercase=True, keep_spaces=keep_spaces)
