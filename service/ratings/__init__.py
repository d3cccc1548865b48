"""Ratings: the rating model (model: openskill's Weng-Lin), players' stored ratings (stored) and
the leaderboards (leaderboards).
What a rated match's end does to its players is the match's (service/matches/rated_matches.py).

May import: engines, the kernel, infra, identity (tests/test_code_shape.py).
"""
