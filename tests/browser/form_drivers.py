"""How a person fills and sends each form of the site, and what they then see: one driver per
form, by the key tests/browser/test_every_form.py knows it by ("POST review:bonus"). Each fills
what the form needs (typed, clicked, ticked), presses the form's own button, and checks that
the result is on screen: a message, the page it leads to, a stored row."""

import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from playwright.sync_api import expect

from collector.models import Description
from review.gold import gold_flag
from tests.browser.test_drafts import DRAFTS
from tests.browser.test_every_page import session_cookie

CLIP = Path(__file__).resolve().parents[2] / "demo" / "clip.webm"
PASSWORD = "correct horse battery"  # every account's in tests/factories.py
# The forms that end the session or put another account in it: sent once every other one is,
# in this order, each with the role's own session given back first.
LAST = ("POST signup", "POST login", "POST admin:logout", "POST logout")
SUBMIT = "button:not([type=button]):enabled, input[type=submit]:enabled"


@dataclass
class Visit:
    page: object
    role: str
    site: object
    live_server: object

    @property
    def username(self):
        user = self.site.users[self.role]
        return user.username if user else None

    def restore_session(self):
        user = self.site.users[self.role]
        self.page.context.clear_cookies()
        if user:
            user.refresh_from_db()  # a session is bound to the password, changed on the way
            self.page.context.add_cookies([session_cookie(user, self.live_server.url)])


def send(visit, form, button=None):
    """Press the form's button named ``button`` (else its first) and wait for the answer."""
    if isinstance(button, str):
        target = form.get_by_role("button", name=button, exact=True)
    else:
        target = button or form.locator(SUBMIT).first
    with visit.page.expect_navigation():
        target.click()


def says(visit, text):
    """The message the site shows after a form (the admin's own list on its pages)."""
    expect(visit.page.locator(".messages, .messagelist").first).to_contain_text(text)


def heading(visit, text):
    expect(visit.page.get_by_role("heading", level=1)).to_contain_text(text)


def csv_file(name, text):
    return {"name": name, "mimeType": "text/csv", "buffer": text.encode()}


# Accounts


def password_reset(visit, form):
    form.get_by_label("Email address").fill("wanda@example.com")
    send(visit, form)
    heading(visit, "Password reset sent")


def password_reset_confirm(visit, form):
    # The same password again: the Tier-1 worker's account is still used by later steps.
    form.get_by_label("New password:").fill(PASSWORD)
    form.get_by_label("Confirm password:").fill(PASSWORD)
    send(visit, form)
    heading(visit, "Password reset complete")


def password_change(visit, form):
    form.get_by_label("Old password").fill(PASSWORD)
    form.get_by_label("New password:", exact=True).fill(PASSWORD)
    form.get_by_label("New password confirmation").fill(PASSWORD)
    send(visit, form)
    heading(visit, "Password change successful")


def signup(visit, form):
    name = f"new-{visit.role}"
    form.get_by_label("Username").fill(name)
    form.get_by_label("Email (optional)").fill(f"{name}@example.com")
    form.get_by_label("Password", exact=True).fill("a new and long passphrase")
    form.get_by_label("Password confirmation").fill("a new and long passphrase")
    send(visit, form)
    expect(visit.page.get_by_role("button", name=f"Log out {name}")).to_be_visible()


def login(visit, form):
    name = visit.username or "wanda"
    form.get_by_label("Username").fill(name)
    form.get_by_label("Password").fill(PASSWORD)
    send(visit, form)
    expect(visit.page.get_by_role("button", name=f"Log out {name}")).to_be_visible()


def logout(visit, form):
    send(visit, form)
    expect(visit.page.get_by_role("link", name="Log in")).to_be_visible()


# A worker's tasks


def task_next(visit, form):
    send(visit, form)
    expect(visit.page).to_have_url(re.compile(r"/(describe|propose|paraphrase|align|rate)/\d+/"))


def describe(visit, form):
    """Typed with the keys; a reload part-way puts the words back (static/js/drafts.js)."""
    page = visit.page
    box = form.get_by_label("Your one-sentence description")
    box.press_sequentially("A man plays")
    page.once("dialog", lambda dialog: dialog.accept())  # leaving unsent work asks first
    page.reload()
    box = page.locator("#description-form").get_by_label("Your one-sentence description")
    expect(box).to_have_value("A man plays")
    assert page.evaluate(DRAFTS), "no draft kept"
    box.press_sequentially(" a guitar on a stage.")
    send(visit, page.locator("#description-form"), "Submit and next")
    says(visit, "Thank you! Your description was saved.")
    assert Description.objects.filter(
        worker__user__username=visit.username, text="A man plays a guitar on a stage."
    ).exists()


def paraphrase(visit, form):
    form.get_by_label("The same meaning in your own words").press_sequentially(
        "Someone plays a guitar."
    )
    send(visit, form, "Submit and next")
    says(visit, "Thank you! Your paraphrase was saved.")


def propose(visit, form):
    link = form.get_by_label("YouTube link")
    link.fill("https://youtu.be/dQw4w9WgXcQ?t=42")
    link.press("Tab")
    expect(visit.page.locator("#video-status")).to_have_text("Video dQw4w9WgXcQ loaded.")
    form.get_by_label("End").fill("0:48")
    form.get_by_label("End").press("Tab")
    form.get_by_label("What happens, in a few words").fill("A man dances")
    send(visit, form, "Submit and next")
    says(visit, "Thank you! Your segment was sent for review.")


def rate(visit, form):
    for choice in ("Mostly the same", "Largely reworded", "Good: a small flaw"):
        form.get_by_text(choice).click()
    send(visit, form, "Submit and next")
    says(visit, "Your rating was saved")


def align(visit, form):
    grid = form.get_by_role("grid")
    grid.get_by_role("button", name=re.compile(": none$")).first.click()
    send(visit, form, "Submit and next")
    says(visit, "Thank you! Your alignment was saved.")


def skip(visit, form):
    send(visit, form)
    says(visit, "Skipped. You will not be shown that task again.")


# Staff's and researchers' pages


def filtered(label, value, choose=False):
    """A GET form: one filter set, and the page shown for it."""

    def driver(visit, form):
        field = form.get_by_label(label, exact=True)
        field.select_option(value) if choose else field.fill(value)
        name = field.get_attribute("name")
        send(visit, form)
        expect(visit.page).to_have_url(re.compile(rf"\?(.*&)?{name}={re.escape(value)}"))
        expect(visit.page.locator(f"form [name={name}]").first).to_have_value(value)

    return driver


def pressed(message, button=None):
    """A form that is only a button: pressed, and the message it leads to."""

    def driver(visit, form):
        send(visit, form, button)
        says(visit, message)

    return driver


def standing(visit, form):
    form.get_by_label(re.compile("^Reason")).fill("Careful work")
    send(visit, form)
    says(visit, "done for wanda")


def bonus(visit, form):
    form.get_by_label("Bonus in dollars").fill("1")
    form.get_by_label("Reason for the bonus").fill("Careful work")
    send(visit, form)
    says(visit, "paid to wanda")


def payout(visit, form):
    form.get_by_label("Pay everything credited up to").fill(date.today().isoformat())
    form.get_by_label("Reason").fill("Paid by bank transfer")
    send(visit, form)
    says(visit, "Recorded a payout")


def bulk_decision(noun):
    def driver(visit, form):
        for box in form.get_by_role("checkbox").all():
            box.check()
        form.get_by_label("Accept", exact=True).check()
        send(visit, form, f"Apply to the ticked {noun}")
        says(visit, "ccepted")

    return driver


def gold_ask(visit, form):
    if form.get_by_label("Its number").count():
        # A description that can become gold, by its real number: the tests before this one
        # leave the database's sequences where they were, so there may be no description 1.
        candidates = Description.objects.exclude(status=Description.Status.REJECTED)
        work = next(d for d in candidates.order_by("pk") if not gold_flag(d))
        form.get_by_label("Its number").fill(str(work.pk))
    send(visit, form)
    heading(visit, "gold")


def gold_make(visit, form):
    send(visit, form)
    says(visit, "is now gold item")


def video_upload(visit, form):
    form.get_by_label("Title").fill("Test card")
    form.get_by_label("Video file").set_input_files(CLIP)
    send(visit, form)
    heading(visit, "Cut segments from “Test card”")


def video_segment(visit, form):
    for label, value in (("Start", "0:01"), ("End", "0:03")):
        form.get_by_label(label, exact=True).fill(value)
        form.get_by_label(label, exact=True).press("Tab")
    send(visit, form, "Add segment")
    says(visit, "it is now offered for description")


def proposal_decision(visit, form):
    send(visit, form, "Approve")
    says(visit, "it is now offered for description")


def review_one(noun):
    def driver(visit, form):
        send(visit, form, "Accept and pay")
        says(visit, re.compile(rf"{noun} \d+ accepted and paid"))

    return driver


def reference_curve(visit, form):
    send(visit, form)
    says(visit, "Reference curve queued")


def comparison(visit, form):
    outputs = "source\toutput\nA man plays a guitar.\tSomeone plays a guitar.\n"
    form.get_by_label(re.compile("output", re.I)).first.set_input_files(
        {"name": "system.tsv", "mimeType": "text/plain", "buffer": outputs.encode()}
    )
    send(visit, form)
    says(visit, "is queued")


def correlation(visit, form):
    ratings = "source,candidate,rating,references\n" + "".join(
        f"a man sings,a man sings {n},{1 + n % 4},a man is singing ||| someone sings\n"
        for n in range(8)
    )
    form.get_by_label("Ratings CSV").set_input_files(csv_file("ratings.csv", ratings))
    send(visit, form, "Analyse")
    heading(visit, "ratings.csv")


def rating_batch(visit, form):
    form.get_by_label("Name", exact=True).fill("Walk batch")
    form.get_by_label("Pairs of descriptions from the corpus").check()
    form.get_by_label("Pairs to draw (corpus)").fill("2")
    send(visit, form, "Offer to judges")
    says(visit, "Walk batch")


def pair_trial(visit, form):
    send(visit, form, "Make it a trial pair")
    says(visit, "trial")


def sources_from_corpus(visit, form):
    send(visit, form)
    says(visit, re.compile(r"[1-9]\d* sentences offered for paraphrasing"))


def sources_from_file(visit, form):
    sentences = b"A woman slices bread.\nA boy rides a bike.\n"
    form.get_by_label("File of sentences").set_input_files(
        {"name": "sentences.txt", "mimeType": "text/plain", "buffer": sentences}
    )
    form.get_by_label(re.compile("^Language of the sentences")).fill("en")
    send(visit, form)
    says(visit, "2 sentences offered for paraphrasing")


def campaign_create(visit, form):
    form.get_by_label("Name:").fill("Walk study")
    form.get_by_label("Platform:", exact=True).select_option(label="Study link")
    form.get_by_label("HITs:").fill("2")
    send(visit, form)
    expect(visit.page.locator("#campaign-summary")).to_have_text("Study link: not published")


def campaign_action(message, **fields):
    def driver(visit, form):
        for label, value in fields.items():
            form.get_by_label(re.compile(label)).fill(value)
        send(visit, form)
        says(visit, message)

    return driver


def campaign_search(visit, form):
    form.get_by_role("textbox").fill("Autumn")
    send(visit, form)
    expect(visit.page.locator("#result_list")).to_contain_text("Autumn study")


def campaign_save(visit, form):
    send(visit, form, form.locator("[name=_save]"))
    says(visit, "was changed successfully")


DRIVERS = {
    "POST password_reset": password_reset,
    "POST password_reset_confirm": password_reset_confirm,
    "POST password_change": password_change,
    "POST signup": signup,
    "POST login": login,
    "POST logout": logout,
    "POST admin:logout": logout,
    "POST crowd:task_next": task_next,
    "POST collector:describe": describe,
    "POST collector:paraphrase": paraphrase,
    "POST collector:propose": propose,
    "POST research:rate": rate,
    "POST annotations:align": align,
    "POST crowd:skip": skip,
    "GET review:overview (Period)": filtered("From", "2024-01-01"),
    "POST review:overview_refresh (Compute the overview again)": pressed("Overview queued"),
    "GET review:queue (Filter the queue)": filtered("Language (code)", "en"),
    "POST review:standing": standing,
    "POST review:bonus": bonus,
    "GET review:descriptions (Filter descriptions)": filtered("Language (code)", "en"),
    "POST review:descriptions": bulk_decision("descriptions"),
    "POST review_pages:alignments": bulk_decision("alignments"),
    "GET review:gold_make": gold_ask,
    "POST review:gold_make": gold_make,
    "POST review:gold_retire": pressed("retired"),
    "GET review:ledger (Period)": filtered("From", "2024-01-01"),
    "POST review:payout": payout,
    "GET review:audit (Filter the log)": filtered("Worker id", "1"),
    "POST segment_review:proposal": proposal_decision,
    "POST segment_review:videos": video_upload,
    "POST segment_review:video": video_segment,
    "POST review_pages:paraphrases": review_one("Paraphrase"),
    "POST review_pages:ratings": review_one("Rating"),
    "GET scoring:corpus (Language)": filtered("Language", "en", choose=True),
    "POST scoring:reference_curve (Compute the reference curve)": reference_curve,
    "POST scoring:paraphrase_comparison (Compare direct paraphrases with descriptions)": pressed(
        "Comparison queued"
    ),
    "GET research:home": filtered("Language", "en"),
    "POST research:export_start": pressed(re.compile(r"Export \d+ \(msvd-csv\) is queued")),
    "POST research:release_start": pressed(re.compile(r"Release \d+ is queued")),
    "POST research:comparison_start": comparison,
    "POST research:token_reset": pressed("Your API token is below."),
    "POST research:correlations": correlation,
    "POST research:correlation_store_combined": pressed(
        "The site's combined score now uses centre"
    ),
    "POST research:rating_batches": rating_batch,
    "POST annotations:pair_trial": pair_trial,
    "POST collector:paraphrase_sources (From the corpus)": sources_from_corpus,
    "POST collector:paraphrase_sources (From a file)": sources_from_file,
    "POST admin:crowd_campaign_create": campaign_create,
    "POST admin:crowd_campaign_action[publish]": campaign_action("ublish"),
    # Only the Mechanical Turk campaign is published on this site, and no platform is
    # configured here: reading it back answers so, in words, and changes nothing.
    "POST admin:crowd_campaign_action[sync]": campaign_action(
        "No connector is configured for mturk"
    ),
    "POST admin:crowd_campaign_action[extend]": campaign_action(
        "xtended", **{"Extend by": "3", "because": "More time"}
    ),
    "POST admin:crowd_campaign_action[expire]": campaign_action(
        "xpire", **{"Expire now because": "Enough"}
    ),
    "GET admin:crowd_campaign_changelist": campaign_search,
    "POST admin:crowd_campaign_change": campaign_save,
}
