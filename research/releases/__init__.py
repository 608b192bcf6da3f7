"""Numbered, immutable releases of the corpus: what a paper can cite.

A release is written once, to a folder of its own (the default storage's
``releases/<number>-<random>``, or a path or s3:// URL given to ``manage.py release``) that must
be empty, and never changed:

    README.md                    the dataset card (Hugging Face YAML: configs, licence), prose
                                 with the licence, the citation and the changes
    data/<split>-00000.parquet   every release: what ``datasets.load_dataset(<folder>)`` reads
    <format>/<split>.<ext>       each other format chosen, one file per split
    changes.tsv                  descriptions added and removed, per split, since the release
                                 before (not in the first release)
    manifest.json                counts, every file's size and SHA-256, the filter, the split,
                                 the signature and tokenisation of every score included

The split is by video, as the exports draw it (research.splits). Which descriptions a release
holds, and in which split, is also kept in the database (``ReleaseDescription``), which is what
the next release's changes are counted against.
"""
