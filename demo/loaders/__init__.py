"""The demo's parts, one module per area of the site, each loaded through the services the
site itself uses and each safe to run again (it adds only what is missing).

``load_demo`` runs them in order: accounts, segments, the demo writers' descriptions, then
what is made from those (sentence pairs, rating batch, paraphrase sentences, campaign, export,
ratings analysis). Their data are the small hand-written files of ``demo/data``.
"""

from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data"
