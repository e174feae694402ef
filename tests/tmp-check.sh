#!/bin/sh
# tmp-check.sh before|after DIR: CTest's tmp-before and tmp-after, around
# the whole suite. before: DIR made anew and empty (every test's TMPDIR),
# and the kladder entries already in /tmp noted (DIR.before). after: DIR is
# empty, no kladder entry appeared in /tmp (kladder*, kl-*: the names the
# tests and the command give their temporary files), and DIR is removed.
set -eu
mode=$1 dir=$2
kladder_entries() { ls -A /tmp 2>/dev/null | grep -E '^(kladder|kl-)' || true; }
case $mode in
before)
  rm -rf "$dir"
  mkdir -p "$dir"
  kladder_entries >"$dir.before"
  echo "ok: $dir is empty" ;;
after)
  [ -d "$dir" ] || { echo "FAIL: $dir is gone (tmp-before did not run?)"; exit 1; }
  left=$(ls -A "$dir")
  new=$(kladder_entries | grep -vxF -f "$dir.before" || true)
  status=0
  if [ -n "$left" ]; then
    echo "FAIL: the tests left in their TMPDIR ($dir):"
    printf '  %s\n' $left
    status=1
  fi
  if [ -n "$new" ]; then
    echo "FAIL: the tests left in /tmp:"
    printf '  %s\n' $new
    status=1
  fi
  [ $status = 0 ] && echo "ok: nothing left in $dir or /tmp"
  rm -rf "$dir" "$dir.before"
  exit $status ;;
*) echo "usage: tmp-check.sh before|after DIR" >&2; exit 2 ;;
esac
