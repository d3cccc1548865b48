#!/usr/bin/env bash
# Regenerates the ladder images of docs/bots.md with `cardtable tournament --plot`.
# Run from the repository root: bash bench/ladder_plots.sh (about 20 minutes of CPU).
# Žolíky and Spades seat two sides, so their ladder is one image per rung; Three Thirteen
# and Zhol seat the four heuristic levels at one table. `pro` is left out: its rungs are
# measured in docs/bots.md and take minutes of CPU per hundred matches.
set -euo pipefail
out=docs/img
mkdir -p "$out"
t() { nice -n 10 python -m service.cli tournament --quiet "$@"; }
for rung in random,easy easy,medium medium,hard; do
    t --game spades --seats "$rung" --matches 200 --seed 1 --options '{"target_score": 200}' \
        --plot "$out/ladder-spades-${rung/,/-}.png"
    t --game zoliky --seats "$rung" --matches 100 --seed 1 --options '{"target_wins": 1}' \
        --plot "$out/ladder-zoliky-${rung/,/-}.png"
done
t --game three-thirteen --seats random,easy,medium,hard --matches 60 --seed 1 \
    --plot "$out/ladder-three-thirteen.png"
t --game zhol --seats random,easy,medium,hard --matches 100 --seed 1 --options '{"target_wins": 1}' \
    --plot "$out/ladder-zhol-small.png"
t --game zhol --seats random,easy,medium,hard --matches 100 --seed 1 \
    --options '{"target_wins": 1, "variant": "large"}' --plot "$out/ladder-zhol-large.png"
