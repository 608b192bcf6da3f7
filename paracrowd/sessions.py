"""Sessions recorded in the database and read from the cache (Redis).

Every request of a signed-in worker reads their session. Read from the database, that is one
query per request, and a burst of crowd workers is bound by queries; so Django's ``cached_db``
engine reads a copy kept in Redis and writes both. The database stays the record, so two things
differ from Django's engine:

- the copy is a convenience, not a dependency (as the rate limits in paracrowd.throttling):
  with Redis out of reach, sessions are read from and written to the database alone, and
  workers stay signed in;
- a copy lives at most SESSION_CACHE_SECONDS. Logging out deletes the session from both; if
  Redis cannot be reached at that moment, a copy it kept stops working within that time.
"""

import logging

from django.conf import settings
from django.contrib.sessions.backends import cached_db, db
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)


class SessionStore(cached_db.SessionStore):
    cache_key_prefix = "paracrowd.session."

    def load(self):
        try:
            data = self._cache.get(self.cache_key)
        except RedisError:
            logger.warning("session read from the database: the cache is unreachable")
            data = None
        if data is not None:
            return data
        stored = self._get_session_from_db()
        if stored is None:
            return {}
        data = self.decode(stored.session_data)
        self._copy_to_cache(data, self.get_expiry_age(expiry=stored.expire_date))
        return data

    def exists(self, session_key):
        # Asked only when a new key is drawn: the database, which has every session, answers.
        return db.SessionStore.exists(self, session_key)

    def save(self, must_create=False):
        db.SessionStore.save(self, must_create)
        self._copy_to_cache(self._session, self.get_expiry_age())

    def delete(self, session_key=None):
        db.SessionStore.delete(self, session_key)
        session_key = session_key or self.session_key
        if session_key is None:
            return
        try:
            self._cache.delete(self.cache_key_prefix + session_key)
        except RedisError:
            logger.warning(
                "a deleted session's copy in the cache stays until it expires "
                "(within SESSION_CACHE_SECONDS): the cache is unreachable"
            )

    def _copy_to_cache(self, data, seconds: int) -> None:
        try:
            self._cache.set(self.cache_key, data, min(seconds, settings.SESSION_CACHE_SECONDS))
        except RedisError:
            logger.warning("session not copied to the cache: the cache is unreachable")
