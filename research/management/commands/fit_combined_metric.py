"""The former name of ``correlate_ratings``, kept so that scripts calling it still work: the
same options, the same table (the combined score's fitted centre and slope among it)."""

from research.management.commands import correlate_ratings


class Command(correlate_ratings.Command):
    help = "Another name for correlate_ratings. " + correlate_ratings.Command.help
