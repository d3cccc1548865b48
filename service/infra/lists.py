"""Items of a Redis list replaced where they stand, by their stored value: a player's erasure
rewrites a match's events and outbox (the match store) and another player's feed (the feeds)
this way (service/privacy/erasure.py), each through the adapter that owns the list."""

# KEYS[1] a list. ARGV: pairs of an item as stored and what replaces it. Each item found is
# replaced where it stands; returns how many were.
REPLACE = """
local wanted = {}
for i = 1, #ARGV, 2 do wanted[ARGV[i]] = ARGV[i + 1] end
local n = 0
for i, item in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  local new = wanted[item]
  if new then
    redis.call('LSET', KEYS[1], i - 1, new)
    n = n + 1
  end
end
return n
"""
