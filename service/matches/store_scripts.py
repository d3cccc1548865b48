"""The Lua scripts of service/matches/store.py: each runs on the match's own Redis (Cluster) slot, so it
may read and write every key of the match atomically."""

# KEYS[1] match hash (fields v = version, n = events stored, data = record JSON)
# KEYS[2] events list, KEYS[3] outbox list (only when ARGV[10] is not '0'), and last the
# idempotency key (only when ARGV[6] is not '')
# ARGV[1] expected version ('-1': the match must not exist yet), ARGV[2] new version,
# ARGV[3] record JSON, ARGV[4] events count after this write, ARGV[5] expiry in seconds,
# ARGV[6] idempotency answer ('' for none), ARGV[7] its expiry, ARGV[8] channel to notify,
# ARGV[9] this write's random id (kept in field w), ARGV[10] k, the number of effects,
# ARGV[11] the seats' tenures (kept in field t, read with the events: service/matches/tenure.py),
# ARGV[12..11+k] the effects for the outbox as JSON, ARGV[12+k..] new events as JSON.
# Returns 1 when written, 0 when the version did not match (nothing written).
COMMIT = """
local cur = redis.call('HGET', KEYS[1], 'v')
if ARGV[1] == '-1' then
  if cur then return 0 end
elseif cur ~= ARGV[1] then
  return 0
end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'n', ARGV[4], 'data', ARGV[3], 'w', ARGV[9], 't', ARGV[11])
local k = tonumber(ARGV[10])
if #ARGV >= 12 + k then
  redis.call('RPUSH', KEYS[2], unpack(ARGV, 12 + k))
end
local ttl = tonumber(ARGV[5])
redis.call('EXPIRE', KEYS[1], ttl)
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('EXPIRE', KEYS[2], ttl) end
if k > 0 then
  redis.call('RPUSH', KEYS[3], unpack(ARGV, 12, 11 + k))
  redis.call('EXPIRE', KEYS[3], ttl)
end
if ARGV[6] ~= '' then
  redis.call('SET', KEYS[#KEYS], ARGV[6], 'EX', ARGV[7])
end
redis.call('PUBLISH', ARGV[8], ARGV[2])
return 1
"""
# On a cluster a plain PUBLISH goes to every node; a shard channel (the match's hash tag, so
# the slot the script already writes) only to the nodes of that slot.
COMMIT_SHARDED = COMMIT.replace("'PUBLISH'", "'SPUBLISH'")

# On one Redis (never a cluster: a player's feed is in another slot): COMMIT, then, once it
# wrote, its notices published to the players' feeds (service/notify/feeds.py, `Feeds.joined`), in
# the same script, so a move that makes notices costs one round trip, not two. KEYS: COMMIT's,
# then three a player (its hash, feed, notice ids). ARGV: COMMIT's, then for each player its
# channel, its count of notices n and n pairs (notice id, entry), then the feeds' length and
# expiry, COMMIT's count of keys and of arguments. Returns what COMMIT does. A feed that cannot
# be written (a key of the wrong type) leaves the commit written and answered: its notices wait
# in the outbox for the relay, as when the committer could not publish them.
PUBLISH_ALL = """
local n = #ARGV
local nk, na = tonumber(ARGV[n - 1]), tonumber(ARGV[n])
local ck, ca = {}, {}
for i = 1, nk do ck[i] = KEYS[i] end
for i = 1, na do ca[i] = ARGV[i] end
if commit(ck, ca) ~= 1 then return 0 end
local length, ttl = tonumber(ARGV[n - 3]), ARGV[n - 2]
local a = na + 1
for k = nk + 1, #KEYS, 3 do
  local count = tonumber(ARGV[a + 1])
  pcall(publish, KEYS[k], KEYS[k + 1], KEYS[k + 2], length, ttl, ARGV[a], ARGV, a + 2, a + 1 + 2 * count)
  a = a + 2 + 2 * count
end
return 1
"""


def commit_publishing(publish_function: str) -> str:
    """The commit that publishes its notices: `publish_function` is the feed's Lua `publish`
    (handed to the store by the composition root, as matches never import notify)."""
    return "local function commit(KEYS, ARGV)\n" + COMMIT + "end\n" + publish_function + PUBLISH_ALL


# KEYS[1] idempotency key. ARGV[1] marker for a request in progress, ARGV[2] its expiry.
# Returns nil when the key was free (now claimed), else the stored value.
CLAIM = """
local cur = redis.call('GET', KEYS[1])
if cur then return cur end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
return false
"""

# KEYS[1] match hash, KEYS[2] events list. ARGV[1] the version the events were read at,
# ARGV[2] all of them as one compressed JSON array. Returns 1 when archived, 0 when the
# match changed after the read (nothing written).
ARCHIVE = """
if redis.call('HGET', KEYS[1], 'v') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'z', ARGV[2])
redis.call('DEL', KEYS[2])
return 1
"""

# KEYS[1] idempotency key, ARGV[1] the in-progress marker: delete the key only while it still
# holds the marker, never a committed answer.
RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

# KEYS[1] the match hash of a match that is over. ARGV[1] the SHA-1 of its record as read,
# ARGV[2] that of its archived events ('' when there were none), ARGV[3] the record to store,
# ARGV[4] the archive to store ('' to keep it). The version stays. Returns 0, writing nothing,
# when the record or the archive changed since the read.
REWRITE_OVER = """
local data = redis.call('HGET', KEYS[1], 'data')
if not data or redis.sha1hex(data) ~= ARGV[1] then return 0 end
local z = redis.call('HGET', KEYS[1], 'z')
if (z and redis.sha1hex(z) or '') ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], 'data', ARGV[3])
if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'z', ARGV[4]) end
return 1
"""
