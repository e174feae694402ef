# shellcheck shell=bash disable=SC2154 # out, dest, only: the sourcer's
# Sourced by the GPU scripts made of parts (gpu-issue32-33.sh), which set
# $out (a folder for every result), $dest (the device's $OUT) and $only
# (the parts to run, a regex).
#   part NAME         whether part NAME runs
#   step NAME         its start, timed, on stderr
#   run NAME CMD...   CMD --json NAME.json, its table in NAME.txt, then
#                     the tarball remade: a call cut short by the device's
#                     limit still brings back every finished run (the
#                     device tool returns only a few files)
part() { [[ $1 =~ $only ]]; }
step() { echo "== $1 ($(date +%T))" >&2; }
save() { tar -C "$out" -czf "$dest/results.tgz" . 2>/dev/null; }
run() {
  local name=$1
  shift
  "$@" --json "$out/$name.json" >"$out/$name.txt" 2>&1
  echo "   $name: exit $?" >&2
  save
}
