#!/bin/sh
# Downloads LoCoMo (Maharana et al., ACL 2024; github.com/snap-research/LoCoMo,
# data CC BY-NC 4.0 — not committed here) for the session-retrieval harness:
#
#   scripts/locomo-fetch.sh            # → ~/.cache/cairn/locomo10.json
#   CAIRN_LOCOMO=~/.cache/cairn/locomo10.json go test ./index -run TestLoCoMo -v -timeout 60m
#
# CAIRN_SESSION_SWEEP=first,default compares the session rules (see
# index/locomo_test.go); CAIRN_LOCOMO_SAMPLES=3 asks the first three
# conversations only.
set -eu
dest=${1:-"${XDG_CACHE_HOME:-$HOME/.cache}/cairn/locomo10.json"}
url=https://raw.githubusercontent.com/snap-research/LoCoMo/main/data/locomo10.json
mkdir -p "$(dirname "$dest")"
if [ -s "$dest" ]; then
	echo "$dest is already there"
	exit 0
fi
tmp="$dest.part"
if ! curl -fsSL -o "$tmp" "$url"; then
	rm -f "$tmp"
	echo "could not download $url; with a git mirror of snap-research/LoCoMo: git show HEAD:data/locomo10.json > $dest" >&2
	exit 1
fi
mv "$tmp" "$dest"
echo "$dest"
