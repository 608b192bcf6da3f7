"""A simulated crowd, generated here with a fixed seed, works through description tasks with
gold items mixed in: the gold rule stops the random clickers, the typing rule stops the pasters
(whose pasted texts are good enough to pass gold), and neither stops an honest worker.

Every task goes through the site's own services (claim, submit, the gold check the Celery task
runs), against the real database. A kind of worker is a function writing a description from
the segment's true action (``BEHAVIOURS``); adding one (a paster, whose text is caught by
another check) means adding its function and its head count to ``POPULATION``, and its check
to ``AFTER_SUBMIT``.
"""

import random

import numpy as np
import pytest
from django.contrib.auth import get_user_model

from collector import services as collector
from collector.provenance import TypingRecord
from collector.services.typing import TYPING_CHECK
from crowd import services as crowd
from crowd.models import HitType, Item, QualityCheck, Tier, Worker
from review.gold import gold_answer_check
from tests.factories import make_segment

pytestmark = pytest.mark.django_db

SEED = 20261126
SIMULATED_IDS = 900_000_000
POPULATION = {"honest": 12, "clicker": 6, "paster": 6}
TASKS_PER_WORKER = 40
GOLD_PERCENT = 30
GOLD_SEGMENTS = 12
ORDINARY_SEGMENTS = 40
HONEST_SLIPS = 0.05  # an honest worker's share of answers about something else by mistake

SUBJECTS = {
    "man": ["man", "guy", "gentleman"],
    "woman": ["woman", "lady"],
    "boy": ["boy", "kid", "young boy"],
    "dog": ["dog", "puppy"],
    "cook": ["cook", "chef"],
}
ACTIONS = {
    "slicing an onion": ["slicing an onion", "cutting an onion", "chopping an onion"],
    "playing a guitar": ["playing a guitar", "strumming a guitar", "playing the guitar"],
    "riding a bicycle": ["riding a bicycle", "riding a bike", "cycling on a bike"],
    "eating a banana": ["eating a banana", "eating a yellow banana", "biting a banana"],
    "swimming in a pool": ["swimming in a pool", "swimming in the pool", "swimming laps"],
    "climbing a tree": ["climbing a tree", "climbing up a tree", "scaling a tree"],
    "throwing a ball": ["throwing a ball", "tossing a ball", "throwing a red ball"],
    "washing a car": ["washing a car", "cleaning a car", "washing the car"],
}
SHAPES = [
    "A {s} is {a}.",
    "The {s} is {a}.",
    "A {s} is {a} outside.",
    "There is a {s} {a}.",
    "In this clip a {s} is {a}.",
    "We see a {s} {a}.",
]
# What a clicker types when not bothering with the video at all.
FILLERS = ["Nice video.", "Good.", "I like this video very much.", "Ok.", "Thanks for the task."]


def sentence(rng, subject, action):
    return (
        rng.choice(SHAPES)
        .format(s=rng.choice(SUBJECTS[subject]), a=rng.choice(ACTIONS[action]))
        .capitalize()
    )


def honest(rng, truth):
    if rng.random() < HONEST_SLIPS:
        return sentence(rng, rng.choice(list(SUBJECTS)), rng.choice(list(ACTIONS)))
    return sentence(rng, *truth)


def clicker(rng, truth):
    """Anything to get paid: a filler, a salad of the task's usual words, or some action
    seen in another video."""
    roll = rng.random()
    if roll < 1 / 3:
        return rng.choice(FILLERS)
    if roll < 2 / 3:
        words = [w for phrases in ACTIONS.values() for p in phrases for w in p.split()]
        words += list(SUBJECTS)
        return " ".join(rng.choice(words) for _ in range(rng.randint(4, 9))).capitalize() + "."
    others = [action for action in ACTIONS if action != truth[1]]
    return sentence(rng, rng.choice(list(SUBJECTS)), rng.choice(others))


def paster(rng, truth):
    """A fluent, on-topic sentence from elsewhere (a language model, say), pasted."""
    return sentence(rng, *truth)


BEHAVIOURS = {"honest": honest, "clicker": clicker, "paster": paster}


def typed(rng, text):
    """What the page counts while a person types ``text``: a key or so per character (and some
    corrections), at three to six characters a second, after reading for a while."""
    keys = round(len(text) * rng.uniform(1.0, 1.3))
    return TypingRecord.bounded(
        key_presses=keys,
        pastes=0,
        pasted_characters=0,
        first_key_ms=rng.randint(4_000, 30_000),
        writing_ms=round(len(text) / rng.uniform(3, 6) * 1000),
        focus_losses=0,
        background_ms=0,
    )


def pasted(rng, text):
    """One paste of the whole text, perhaps a key or two to tidy it."""
    return TypingRecord.bounded(
        key_presses=rng.randint(0, 3),
        pastes=1,
        pasted_characters=len(text),
        first_key_ms=rng.randint(2_000, 10_000),
        writing_ms=rng.randint(0, 2_000),
        focus_losses=1,
        background_ms=rng.randint(0, 1_000),
    )


# How each kind of worker's text comes into the box, as the page records it.
TYPING = {"honest": typed, "clicker": typed, "paster": pasted}
# Checks run after each submission besides the gold check (a provenance check, say).
AFTER_SUBMIT = []


def make_segments(rng, numbers):
    """Segments with a true action each (subject, action), drawn with the seed."""
    segments = {}
    for _ in range(numbers):
        truth = (rng.choice(list(SUBJECTS)), rng.choice(list(ACTIONS)))
        segments[make_segment().item_id] = truth
    return segments


def simulated_worker(number: int) -> Worker:
    """A worker whose id is fixed: where a worker's gold items fall depends on it, so the run
    is the same whatever other tests ran before (ids far above any the sequence hands out;
    the test's transaction takes them back)."""
    user = get_user_model().objects.create_user(username=f"simulated-{number}")
    return Worker.objects.create(pk=SIMULATED_IDS + number, user=user)


def test_the_gold_and_typing_rules_stop_the_clickers_and_pasters_and_no_honest_worker():
    rng = random.Random(SEED)
    np.random.seed(SEED)
    HitType.objects.for_kind(HitType.Kind.DESCRIPTION)
    HitType.objects.filter(kind=HitType.Kind.DESCRIPTION).update(gold_percent=GOLD_PERCENT)
    truths = make_segments(rng, GOLD_SEGMENTS)
    for item_id, truth in truths.items():
        references = [{"text": sentence(rng, *truth), "language": "en"} for _ in range(6)]
        item = Item.objects.get(pk=item_id)
        crowd.gold_item_create(
            item=item, answer={"references": references}, source="simulation", created_by=None
        )
    truths |= make_segments(rng, ORDINARY_SEGMENTS)

    kinds = [kind for kind, count in POPULATION.items() for _ in range(count)]
    crowd_of = [(kind, simulated_worker(number)) for number, kind in enumerate(kinds)]
    order = np.random.permutation(len(crowd_of))
    done = dict.fromkeys(range(len(crowd_of)), 0)
    for _ in range(TASKS_PER_WORKER):
        for index in order:
            kind, worker = crowd_of[index]
            try:
                assignment = crowd.assignment_claim(worker=worker, tier=Tier.ONE)
            except crowd.WorkRefused:
                continue  # stopped
            if assignment is None:
                continue
            text = BEHAVIOURS[kind](rng, truths[assignment.hit.item_id])
            collector.description_submit(
                assignment_id=assignment.pk,
                worker=worker,
                text=text,
                language="en",
                typing=TYPING[kind](rng, text),
            )
            gold_answer_check(assignment_id=assignment.pk)
            for check in AFTER_SUBMIT:
                check(worker=worker, assignment=assignment, kind=kind)
            done[index] += 1

    figures = {}
    for kind in POPULATION:
        members = [(i, w) for i, (k, w) in enumerate(crowd_of) if k == kind]
        ids = [w.pk for _, w in members]
        checks = QualityCheck.objects.filter(worker_id__in=ids, kind="gold")
        flagged = QualityCheck.objects.filter(worker_id__in=ids, kind=TYPING_CHECK)
        stopped = Worker.objects.filter(pk__in=ids, blocked_at__isnull=False).count()
        figures[kind] = {
            "workers": len(ids),
            "stopped": stopped,
            "tasks": sum(done[i] for i, _ in members),
            "gold answered": checks.count(),
            "gold passed": checks.filter(passed=True).count(),
            "most failed by one": max(
                (checks.filter(worker_id=pk, passed=False).count() for pk in ids), default=0
            ),
            "texts flagged untyped": flagged.count(),
        }
    for kind, row in figures.items():
        print(kind, row)  # the figures the closing note quotes
    assert figures["clicker"]["stopped"] == figures["clicker"]["workers"]
    assert figures["paster"]["stopped"] == figures["paster"]["workers"]
    assert figures["honest"]["stopped"] == 0
    assert figures["honest"]["texts flagged untyped"] == 0
    # Pasted texts are on topic: gold alone would not have stopped the pasters.
    assert figures["paster"]["gold passed"] == figures["paster"]["gold answered"]
    # Every honest worker did all their tasks; clickers were stopped well before theirs.
    assert figures["honest"]["tasks"] == POPULATION["honest"] * TASKS_PER_WORKER
    assert figures["clicker"]["tasks"] < POPULATION["clicker"] * TASKS_PER_WORKER * 0.75
    assert figures["paster"]["tasks"] < POPULATION["paster"] * TASKS_PER_WORKER * 0.25
