"""Matches: the Match aggregate (match: the record's one writer, every change of a match its
method; match_questions: what is asked of it without changing it; new_match: a new match's id,
options, seats and fair-deal fields), its repository and the one compare-and-set commit
(repository), the match store and its Lua scripts (store, store_scripts), the outbox and the
notices a commit publishes (outbox, notices), and the use cases: seats, invitations, tenure and
membership, acting, bots and clocks, following, hints, rematch, options, fair seeds, rated
matches (rated_matches), the lobby and its index, a player's matches (my_matches), where a match
is listed outside its slot (listings: the commit's lists effect), the apps' match index
(app_index) and an app's listing and abort (app_matches).

May import: engines, the kernel, infra, identity, ratings. It hands notices to notify/ only
through the notice sinks bootstrap wires into the repository (publishers never import
subscribers); the one part of notify the commit's script embeds, the feed's Lua `publish`, is
handed to the store by bootstrap.
"""
