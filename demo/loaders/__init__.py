"""The demo's parts, one module per area of the site, each loaded through the services the
site itself uses and each safe to run again (it adds only what is missing).

``load_demo`` runs them in order: accounts, segments, the demo writers' descriptions, then
what is made from those (sentence pairs and the writers' alignments of some, rating batch and
the writers' ratings of some pairs, paraphrase sentences and the writers' paraphrases,
campaign, export, ratings analysis), then the corpus measures (agreement, reference curve,
direct paraphrases against descriptions). The demo writers work as any worker does, through
the claim and submission services (``tasks``). Their data are the small hand-written files of
``demo/data``.
"""

from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data"
