"""Django's Redis cache, keeping its Redis client instead of building one for every call.

Django's cache builds a new ``redis.Redis`` for each get or set (on its shared connection
pool); building one copies every command's response handler, a quarter of a millisecond.
Every request of a signed-in worker reads the cache at least once (their session), so the one
client of each pool is kept. A ``redis.Redis`` on a pool is safe to share between threads:
each command takes a connection from the pool.
"""

from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient


class _KeptClient(RedisCacheClient):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients = {}

    def get_client(self, key=None, *, write=False):
        index = self._get_connection_pool_index(write)
        client = self._clients.get(index)
        if client is None:
            client = self._client(connection_pool=self._get_connection_pool(write))
            self._clients[index] = client
        return client


class RedisCache(DjangoRedisCache):
    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = _KeptClient
