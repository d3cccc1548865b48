"""The abuse suite (issue 39): each exploit the public would bring on day one, run against a live
`cardtable serve` and shown closed. One module per group of findings, each with a serve of its
own, since each lowers other limits to reach its exploit in seconds:

- test_feeds.py: a feed resumed past its own seat's leave (long-poll `after`, stream
  `Last-Event-ID`) never gets the next occupant's deal; an address holds at most its open
  long-polls and streams (`CARDTABLE_MAX_WAITS_PER_ADDRESS`).
- test_loops_and_storage.py: invitation, claim and hint loops hold up nobody and end no rated
  match; an anonymous address holds a bounded number of live matches; a match whose last person
  left ends `abandoned`, no bot playing for nobody.
- test_rematch.py: a rematch seats only those who asked; reserved seats; `declined`.
- test_pages_and_webhooks.py: `/v1/me/matches` costs the page it answers; webhook tests and
  retries counted, failure history kept, pending deliveries capped.
- test_erasure.py: an erased player's name and external id stay nowhere another caller reads.
- test_contract.py: integral numbers, bearers that are no credential, streams described.
- test_chaos.py: a scripted chaos client (random calls of every endpoint from several seats and
  players, 2 minutes in CI) asserting after each answer that no seat saw a card it may not see,
  and at the end that every match moves on or ends.
"""
