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


class _SentinelClient(_KeptClient):
    """The master of a Redis watched by Sentinels: redis-py's SentinelConnectionPool asks
    them for the master's address on each new connection, so after a failover the next
    connection goes to the promoted replica (a connection to the old master fails once, as a
    command to a stopped Redis would, and the rate limits count locally meanwhile)."""

    def __init__(self, servers, *, master, **options):
        super().__init__(servers, **options)
        from paracrowd.scaling import redis_location

        self._location = redis_location(";".join(servers), master=master, name="CACHE_URL")

    def _get_connection_pool_index(self, write):
        return 0  # one master; the Sentinels are not servers to read from

    def _get_connection_pool(self, write):
        if 0 not in self._pools:
            from redis.sentinel import Sentinel, SentinelConnectionPool

            timeouts = {
                name: value
                for name, value in self._pool_options.items()
                if name in ("socket_timeout", "socket_connect_timeout")
            }
            sentinel = Sentinel(list(self._location.sentinels), sentinel_kwargs=timeouts)
            self._pools[0] = SentinelConnectionPool(
                self._location.master,
                sentinel,
                db=self._location.db,
                password=self._location.password,
                **self._pool_options,
            )
        return self._pools[0]


class SentinelRedisCache(RedisCache):
    """The cache on a Redis watched by Sentinels (LOCATION ``sentinel://host:port;…``,
    OPTIONS ``master``: the name they know it by); Django's own Redis cache speaks to one
    server only."""

    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = _SentinelClient
