"""Where workers come from that is no crowd platform: the site's own sign-ups and imported
corpora. They answer the few questions of the ``Platform`` interface that the rest of the site
asks of every worker (fees, signing in, how research tables name them); they publish nothing
and claim no arrival, so they are kept out of ``REGISTRY``."""

from .base import Platform


class SiteSignUps(Platform):
    name = "local"
    label = "this site"
    fee_free = True
    signs_in_here = True


class ImportedCorpus(Platform):
    name = "import"
    label = "an imported corpus"
    keeps_own_worker_ids = True


ORIGINS: dict[str, Platform] = {origin.name: origin for origin in (SiteSignUps(), ImportedCorpus())}
