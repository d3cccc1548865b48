#!/usr/bin/env bash
# Regenerates the ladder images of docs/bots.md with `cardtable tournament --plot`.
# Run from the repository root: bash bench/ladder_plots.sh [GAME ...] (default: every game;
# Spades, Žolíky and Three Thirteen took 15 minutes of CPU on 2026-12-03, mostly the pro rungs).
# Žolíky and Spades seat two sides, so their ladder is one image per rung; Three Thirteen
# and Zhol seat the four heuristic levels at one table. The upper rungs (hard, solver, pro) are
# one image per rung for every game (Zhol small and large apart), with fewer matches where `pro` plays
# (minutes of CPU per hundred matches); the win rates docs/bots.md quotes for them come from
# larger runs.
set -euo pipefail
out=docs/img
mkdir -p "$out"
games=("$@")
[ ${#games[@]} -gt 0 ] || games=(spades zoliky three-thirteen zhol)
want() { [[ " ${games[*]} " == *" $1 "* ]]; }
t() { nice -n 10 python -m service.cli tournament --quiet "$@"; }
spades() { t --game spades --options '{"target_score": 200}' "$@"; }
zoliky() { t --game zoliky --options '{"target_wins": 1}' "$@"; }
for rung in random,easy easy,medium medium,hard; do
    if want spades; then spades --seats "$rung" --matches 200 --seed 1 --plot "$out/ladder-spades-${rung/,/-}.png"; fi
    if want zoliky; then zoliky --seats "$rung" --matches 100 --seed 1 --plot "$out/ladder-zoliky-${rung/,/-}.png"; fi
done
if want three-thirteen; then
    t --game three-thirteen --seats random,easy,medium,hard --matches 60 --seed 1 \
        --plot "$out/ladder-three-thirteen.png"
fi
# Upper rungs: "lower,upper" and the match counts (hard against solver, solver against pro,
# hard against pro).
upper() {
    local game=$1 runner=$2
    shift 2
    local rungs=(hard,solver solver,pro hard,pro) counts=("$@") i
    for i in 0 1 2; do
        "$runner" --seats "${rungs[$i]}" --matches "${counts[$i]}" --seed 1 \
            --plot "$out/ladder-$game-${rungs[$i]/,/-}.png"
    done
}
three_thirteen() { t --game three-thirteen "$@"; }
if want spades; then upper spades spades 1000 60 60; fi
if want zoliky; then upper zoliky zoliky 400 100 100; fi
if want three-thirteen; then upper three-thirteen three_thirteen 200 40 40; fi
if want zhol; then
    t --game zhol --seats random,easy,medium,hard --matches 100 --seed 1 --options '{"target_wins": 1}' \
        --plot "$out/ladder-zhol-small.png"
    t --game zhol --seats random,easy,medium,hard --matches 100 --seed 1 \
        --options '{"target_wins": 1, "variant": "large"}' --plot "$out/ladder-zhol-large.png"
    zhol_small() { t --game zhol --options '{"target_wins": 1}' "$@"; }
    zhol_large() { t --game zhol --options '{"target_wins": 1, "variant": "large"}' "$@"; }
    upper zhol-small zhol_small 200 100 100
    upper zhol-large zhol_large 100 60 60
fi
