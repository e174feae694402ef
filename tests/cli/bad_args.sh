#!/bin/sh
# bad_args.sh KLADDER: every command's arguments, input files and output
# files, given badly, each case one line of a table: the exit code
# expected, a fragment of the message ('-': any) and the arguments. Each
# case must end within 20 s with that code (never a signal), say what is
# wrong in one line on standard error (tune --check: its one line on
# standard output) and leave every file as it was: the inputs byte for
# byte, no file made, no temporary left.
#
# The arguments of a case are read as the shell reads words (eval), with
# these at hand: $LONG (100 kB), $BAD (bytes that are not UTF-8), $NL (a
# line break inside a word), $RUN (a tiny run: one workload, serial, 2
# runs), $CG (cg on a tiny matrix file). Words NAME=VALUE before the
# command go to its environment; a first word @nobody runs the case as
# the user nobody (a file root could read anyway), @stdout-full with its
# standard output on /dev/full.
#
# Two more tables give kinds of bad file (missing, a directory, empty,
# unreadable, a named pipe with no writer, /dev/zero, /proc/self/status,
# a 2 GB sparse file, binary garbage) and of unwritable output (a
# directory, a missing folder, a read-only folder, /dev/full, a pipe with
# no reader); every reader meets every kind of file, every writer every
# kind of output.
kladder=$1
command -v timeout >/dev/null 2>&1 || { echo "SKIP: no timeout here"; exit 77; }
top=$(mktemp -d) || exit 1
trap 'chmod -R u+rwx "$top" 2>/dev/null; rm -rf "$top"' EXIT
chmod 755 "$top"
cd "$top" || exit 1
failures=0 tried=0 started=$(date +%s)
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# ---- the files the cases read
mkdir work home tmp
chmod 1777 tmp
cd work || exit 1
HOME=$top/home TMPDIR=$top/tmp
export HOME TMPDIR
unset XDG_CACHE_HOME KLADDER_WISDOM KLADDER_MEMORY_LIMIT KLADDER_DB_TIMEOUT
"$kladder" run -q -w read -b serial -n 4K --reps 2 --json good.json \
  >/dev/null 2>&1 || { echo "FAIL: the run that makes good.json"; exit 1; }
cp good.json other.json
"$kladder" tune -q -w reduce -b serial -n 1K,4K --reps 2 -o good.wisdom \
  >/dev/null 2>&1 || { echo "FAIL: the tune that makes good.wisdom"; exit 1; }
printf '%%%%MatrixMarket matrix coordinate real symmetric\n3 3 5\n1 1 4\n2 1 1\n2 2 4\n3 2 1\n3 3 4\n' >good.mtx
printf '%%%%MatrixMarket matrix array real general\n3 1\n1\n2\n3\n' >rhs.mtx
mkdir dir rodir
chmod 555 rodir
: >empty
printf 'kladder\000\001\002\377\376\375garbage\n\033[31m' >garbage
i=0
while [ $i -lt 8 ]; do cat garbage garbage garbage garbage >>garbage.tmp; i=$((i + 1)); done
mv garbage.tmp garbage
cp good.json secret.json
chmod 600 secret.json
mkfifo fifo 2>/dev/null || echo "note: no mkfifo: the named pipe kinds are left out"
truncate -s 2G sparse 2>/dev/null || echo "note: no truncate: the 2 GB kind is left out"
ln -s /dev/full full
have_history=0
"$kladder" history --help >/dev/null 2>&1 &&
  ! "$kladder" history --check 2>&1 | grep -q "without SQLite" && have_history=1
if [ "$have_history" = 1 ]; then
  "$kladder" history --db good.db --import good.json >/dev/null 2>&1 ||
    { echo "FAIL: the import that makes good.db"; exit 1; }
else
  echo "note: no SQLite: the history's cases are left out"
fi

# Running as nobody: root reads and writes whatever the modes say.
as_nobody=
if [ "$(id -u)" = 0 ]; then
  if command -v setpriv >/dev/null 2>&1 &&
    setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null &&
    setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$kladder"; then
    as_nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
  else
    echo "note: root, and no setpriv to run as nobody: the unreadable and read-only kinds are left out"
  fi
fi
can_nobody() { [ "$(id -u)" != 0 ] || [ -n "$as_nobody" ]; }

# What the folder holds before the cases: a case that changes it is
# failed, and what it changed put back (restore), so that the next case
# meets the same files.
mkdir "$top/pristine"
for f in *; do [ -f "$f" ] && [ ! -L "$f" ] && [ "$f" != sparse ] && cp -p "$f" "$top/pristine/"; done
ls -A >"$top/names"
restore() {
  for f in * .[!.]*; do
    [ -e "$f" ] || [ -L "$f" ] || continue
    grep -qxF -- "$f" "$top/names" || rm -rf "./$f"
  done
  chmod 755 rodir
  rm -rf dir/* rodir/* "${TMPDIR:?}"/*
  chmod 555 rodir
  for f in "$top"/pristine/*; do cmp -s "$f" "${f##*/}" || cp -p "$f" .; done
  [ -L full ] || { rm -rf full; ln -s /dev/full full; }
}

LONG=$(head -c 102400 /dev/zero | tr '\0' x)
BAD=$(printf 'm\377\376ap')
NL=$(printf 'map\nx')
RUN="run -q -w map -b serial --reps 2 --warmup 0 --no-ceiling"
CG="run -q -w cg -b serial --reps 2 --warmup 0 --no-ceiling --matrix good.mtx"

# The state of the folder: every entry, its kind, mode, and but for a
# folder its size, link and times (to the nanosecond: a file written
# again shows).
state() {
  find . "$TMPDIR" -type d -printf '%p d %m\n' -o \
    -printf '%p %y %s %m %l %T@ %C@\n' 2>/dev/null | sort
}

# case CODE FRAGMENT ARGS...: one case (the table's line, split).
case_() {
  want=$1 frag=$2
  shift 2
  tried=$((tried + 1))
  who= out=stdout.txt
  case $1 in
  @nobody)
    shift
    can_nobody || return 0
    who=$as_nobody ;;
  @stdout-full) shift; out=/dev/full ;;
  esac
  # @late: a device or a pipe is written when the run ends, so the table
  # may come before the one line that says it could not be.
  late=
  [ "$1" = @late ] && { late=1; shift; }
  envs=
  while :; do
    case $1 in KLADDER_*=*) envs="$envs $1"; shift ;; *) break ;; esac
  done
  shown="$(printf '%s ' $envs kladder "$@" | cut -c 1-150 | tr -c '[:print:]' '?')"
  state >"$top/before"
  $who timeout -k 5 20 env $envs "$kladder" "$@" >"$out" 2>"$top/stderr" </dev/null
  rc=$?
  [ "$out" = stdout.txt ] && mv stdout.txt "$top/stdout"
  [ "$out" = stdout.txt ] || : >"$top/stdout"
  state >"$top/after"
  if [ "$rc" = 124 ]; then fail "$shown: still running after 20 s"; return; fi
  [ "$rc" -lt 128 ] || fail "$shown: ended by a signal (exit $rc)"
  [ "$rc" = "$want" ] ||
    fail "$shown: exit $rc, not $want: $(head -c 300 "$top/stderr" | tr '\n' '|')"
  if [ "$want" = 1 ] && [ ! -s "$top/stderr" ]; then
    lines=$(wc -l <"$top/stdout")
  elif [ "$want" != 0 ]; then
    lines=$(wc -l <"$top/stderr")
    [ ! -s "$top/stdout" ] || [ -n "$late" ] ||
      fail "$shown: wrote to standard output"
  else
    lines=1
  fi
  [ "$lines" = 1 ] ||
    fail "$shown: $lines lines, not one: $(head -c 300 "$top/stderr" | tr '\n' '|')"
  [ "$frag" = - ] || cat "$top/stdout" "$top/stderr" | grep -qF -- "$frag" ||
    fail "$shown: no '$frag' in: $(head -c 300 "$top/stderr")"
  cmp -s "$top/before" "$top/after" || {
    fail "$shown: files changed: $(diff "$top/before" "$top/after" | grep '^[<>]' | head -3 | tr '\n' ' ')"
    restore
  }
  [ -L full ] && [ "$(readlink full)" = /dev/full ] && [ -c /dev/full ] ||
    { fail "$shown: the link to /dev/full was replaced"; rm -f full; ln -s /dev/full full; }
}
# run_table: each line CODE|FRAGMENT|ARGS of standard input, a case.
run_table() {
  while IFS='|' read -r code frag args; do
    case $code in '' | '#'*) continue ;; esac
    eval "set -- $args"
    case_ "$code" "$frag" "$@"
  done
}

# ---- the command line: one case a line, CODE|FRAGMENT|ARGS
run_table <<'EOF'
# kladder alone, and its commands
2|usage: kladder|
2|unknown command|''
2|unknown command|bogus
2|unknown command|"$LONG"
2|unknown command|"$BAD"
2|unknown command|"$NL"
2|unknown command|-x
2|unknown command|--helpx
2|unknown command|--version=1
# -n: the size
2|needs a non-empty value|$RUN -n ''
2|not a number|$RUN -n abc
2|-|$RUN -n -5
2|zero|$RUN -n 0
2|-|$RUN -n -0
2|9223372036854775808|$RUN -n 9223372036854775808
2|18446744073709551616|$RUN -n 18446744073709551616
2|-|$RUN -n 1e999
2|-|$RUN -n 1e3
2|-|$RUN -n nan
2|-|$RUN -n inf
2|-|$RUN -n 0x10
2|5X|$RUN -n 5X
2|-|$RUN -n 5KK
2|-|$RUN -n 1.5K
2|-|$RUN -n '1K '
2|-|$RUN -n ' 1K'
0|-|$RUN -n +1K
2|-|$RUN -n 8G8
2|-|$RUN -n "$LONG"
2|-|$RUN -n "$BAD"
2|-|$RUN -n "1$NL"
2|needs a value|$RUN -n
2|given twice|$RUN -n 1K -n 2K
2|given twice|$RUN -n 1K --size=1K
2|-|$RUN -n 5 -p n=6
2|'=5'|$RUN -n=5
# sweeps
2|-|$RUN -n 1K,,4K
2|-|$RUN -n 1K,
2|-|$RUN -n ,1K
2|-|$RUN -n 16K..1K:x4
2|-|$RUN -n 1K..16K
2|-|$RUN -n 1K..16K:x1
2|-|$RUN -n 1K..16K:x0
2|-|$RUN -n 1K..16K:x-2
2|-|$RUN -n 1K..16K:xnan
2|-|$RUN -n 1K..16K:xinf
2|-|$RUN -n 1K..16K:x1e999
2|-|$RUN -n 1K..16K:+0
2|-|$RUN -n 1K..16K:+-1
2|-|$RUN -n 1..1G:+1
2|-|$RUN -n 1K..16K:y2
2|-|$RUN -n 1K..16K:x2junk
2|-|$RUN -n 1K..:x2
2|-|$RUN -n ..16K:x2
2|-|$RUN -n 1K,1024
2|-|$RUN -n 0..16:x2
2|-|$RUN -n 1..9223372036854775808:x2
2|-|run -q -w laplacian -b serial --reps 2 -n 8 -p hx=0.5..2:x1
2|-|run -q -w laplacian -b serial --reps 2 -n 8 -p hx=2..0.5:x2
2|-|run -q -w laplacian -b serial --reps 2 -n 8 -p hx=0.5..nan:x2
2|-|run -q -w laplacian -b serial --reps 2 -n 8 -p hx=0.5..inf:+1
2|-|run -q -w laplacian -b serial --reps 2 -n 8 -p nx=8,16,nx=32
2|-|run -q -w reduce -b serial --reps 2 -n 1K -p op=sum..max:x2
2|-|run -q -w reduce -b serial --reps 2 -n 1K -p op=sum,,max
# --reps, --warmup
2|needs a non-empty value|$RUN -n 1K --reps ''
2|--reps|run -q -w map -b serial -n 1K --reps abc
2|--reps|run -q -w map -b serial -n 1K --reps -1
2|--reps|run -q -w map -b serial -n 1K --reps 0
2|--reps|run -q -w map -b serial -n 1K --reps -0
2|--reps|run -q -w map -b serial -n 1K --reps 1000001
2|--reps|run -q -w map -b serial -n 1K --reps 9223372036854775808
2|--reps|run -q -w map -b serial -n 1K --reps 1e3
2|--reps|run -q -w map -b serial -n 1K --reps 0x10
2|--reps|run -q -w map -b serial -n 1K --reps nan
2|--reps|run -q -w map -b serial -n 1K --reps 5X
2|--reps|run -q -w map -b serial -n 1K --reps ' 5'
2|--reps|run -q -w map -b serial -n 1K --reps '5 '
2|--reps|run -q -w map -b serial -n 1K --reps "$LONG"
2|needs a value|run -q -w map -b serial -n 1K --reps
2|given twice|$RUN -n 1K --reps 3
2|--warmup|$RUN -n 1K --warmup -1
2|given twice|$RUN -n 1K --warmup 1
2|--warmup|run -q -w map -b serial -n 1K --warmup 1000001
2|--warmup|run -q -w map -b serial -n 1K --warmup abc
2|--warmup|run -q -w map -b serial -n 1K --warmup 2.5
2|--warmup|run -q -w map -b serial -n 1K --warmup ' 1'
# --max-time, --precision
2|--max-time|$RUN -n 1K --max-time -1
2|--max-time|$RUN -n 1K --max-time nan
2|--max-time|$RUN -n 1K --max-time inf
2|--max-time|$RUN -n 1K --max-time 1e999
2|--max-time|$RUN -n 1K --max-time 1e7
2|--max-time|$RUN -n 1K --max-time abc
2|--max-time|$RUN -n 1K --max-time 5X
2|--max-time|$RUN -n 1K --max-time 0x10
2|--max-time|$RUN -n 1K --max-time ' 1'
2|--max-time|$RUN -n 1K --max-time 1s
2|--precision|$RUN -n 1K --precision 0
2|--precision|$RUN -n 1K --precision -0.1
2|--precision|$RUN -n 1K --precision 1
2|--precision|$RUN -n 1K --precision 100%
2|--precision|$RUN -n 1K --precision 0%
2|--precision|$RUN -n 1K --precision nan
2|--precision|$RUN -n 1K --precision inf
2|--precision|$RUN -n 1K --precision 1e999
2|--precision|$RUN -n 1K --precision 1e-999
2|--precision|$RUN -n 1K --precision abc
2|--precision|$RUN -n 1K --precision '0.5 %'
2|--precision|$RUN -n 1K --precision 0.5%%
2|--precision|$RUN -n 1K --precision 0x0.1
2|--precision|$RUN -n 1K --precision ' 0.1'
# --seed
2|--seed|$RUN -n 1K --seed -1
2|--seed|$RUN -n 1K --seed ' -1'
2|--seed|$RUN -n 1K --seed ' 5'
0|-|$RUN -n 1K --seed +5
2|--seed|$RUN -n 1K --seed abc
2|--seed|$RUN -n 1K --seed 18446744073709551616
2|--seed|$RUN -n 1K --seed 1e3
2|--seed|$RUN -n 1K --seed 0x10
2|--seed|$RUN -n 1K --seed 5X
2|given twice|$RUN -n 1K --seed 1 --seed 2
# -p: parameters
2|-|$RUN -n 1K -p ''
2|NAME=VALUE|$RUN -n 1K -p n
2|-|$RUN -n 1K -p =5
2|-|$RUN -p n=
2|-|$RUN -n 1K -p bogus=1
2|-|$RUN -p n=abc
2|-|$RUN -p n=-1
2|-|$RUN -p n=0
2|-|$RUN -p n=1e999
2|-|$RUN -p n=nan
2|-|$RUN -p n=0x10
2|-|$RUN -p n=5X
2|-|$RUN -p 'n= 5'
2|-|$RUN -p "$BAD=1"
2|-|$RUN -p "n=1$NL"
2|-|$RUN -p "$LONG=1"
2|-|$RUN -p "n=$LONG"
2|-|run -q -w laplacian -b serial --reps 2 -n 8 -p hx=nan
2|-|run -q -w laplacian -b serial --reps 2 -n 8 -p hx=inf
2|-|run -q -w laplacian -b serial --reps 2 -n 8 -p hx=-inf
2|-|run -q -w laplacian -b serial --reps 2 -n 8 -p hx=1e999
2|-|run -q -w laplacian -b serial --reps 2 -n 8 -p hx=0
2|-|run -q -w laplacian -b serial --reps 2 -n 8 -p hx=-0
2|-|run -q -w laplacian -b serial --reps 2 -n 8 -p hx=1e-999
2|-|run -q -w laplacian -b serial --reps 2 -n 8 -p hx=abc
2|-|run -q -w laplacian -b serial --reps 2 -n 8 -p hx=1.5X
2|-|run -q -w laplacian -b serial --reps 2 -n 8 -p nx=2.5
2|-|run -q -w laplacian -b serial --reps 2 -n 8 -p m=3
2|-|run -q -w laplacian -b serial --reps 2 -p nx=9223372036854775808
2|-|run -q -w reduce -b serial --reps 2 -n 1K -p op=bogus
2|-|run -q -w reduce -b serial --reps 2 -n 1K -p op=
2|-|run -q -w reduce -b serial --reps 2 -n 1K -p op=SUM
2|-|run -q -w reduce -b serial --reps 2 -n 1K -o sum -p op=max
2|-|run -q -w reduce -b serial --reps 2 -n 1K -o bogus
2|-|run -q -w reduce -b serial --reps 2 -n 1K --inputs bogus
2|-|run -q -w reduce -b serial --reps 2 -n 1K --inputs random -p inputs=sorted
2|-|run -q -w histogram -b serial --reps 2 -n 1K -p value=256
2|-|run -q -w histogram -b serial --reps 2 -n 1K -p value=-1
2|-|run -q -w cg -b serial --reps 2 -n 4 -p stencil=bogus
2|-|run -q -w cg -b serial --reps 2 -n 4 -p tol=nan
2|-|run -q -w cg -b serial --reps 2 -n 4 -p tol=-1
2|-|run -q -w cg -b serial --reps 2 -n 4 -p maxit=0
2|-|run -q -w cg -b serial --reps 2 -n 4 -p maxit=1000000001
2|is odd|run -q -w cg -b serial --reps 2 -n 4 -p batch=5
2|-|run -q -w cg -b serial --reps 2 -n 4 -p batch=0
2|outside [3, 4]|run -q -w cg -b serial --reps 2 -n 4 -p planes=5
# -s, --ld, --alpha, --beta, --scalars (gemm)
2|-|run -q -w gemm -b serial --reps 2 -s ''
2|-|run -q -w gemm -b serial --reps 2 -s 4x4x4x4
2|-|run -q -w gemm -b serial --reps 2 -s 0x4x4
2|-|run -q -w gemm -b serial --reps 2 -s -4x4x4
2|-|run -q -w gemm -b serial --reps 2 -s 4xx4
2|-|run -q -w gemm -b serial --reps 2 -s axbxc
2|-|run -q -w gemm -b serial --reps 2 -s 4x4x1e999
2|-|run -q -w gemm -b serial --reps 2 -s 4x4x4X
2|-|run -q -w gemm -b serial --reps 2 -s 9223372036854775808x1x1
2|-|run -q -w gemm -b serial --reps 2 -s "$LONG"
2|-|run -q -w gemm -b serial --reps 2 -s 4x4x4 -p m=5
2|given twice|run -q -w gemm -b serial --reps 2 -s 4x4x4 -s 4x4x4
2|-|run -q -w gemm -b serial --reps 2 -s 4x4x4 --ld 1,2,3,4
2|-|run -q -w gemm -b serial --reps 2 -s 4x4x4 --ld -1
2|-|run -q -w gemm -b serial --reps 2 -s 4x4x4 --ld 0
2|-|run -q -w gemm -b serial --reps 2 -s 4x4x4 --ld 2
2|-|run -q -w gemm -b serial --reps 2 -s 4x4x4 --ld abc
2|-|run -q -w gemm -b serial --reps 2 -s 4x4x4 --ld 4,4,4 -p lda=8
2|--alpha|run -q -w gemm -b serial --reps 2 -s 4x4x4 --alpha abc
2|--alpha|run -q -w gemm -b serial --reps 2 -s 4x4x4 --alpha nan
2|--alpha|run -q -w gemm -b serial --reps 2 -s 4x4x4 --alpha inf
2|--alpha|run -q -w gemm -b serial --reps 2 -s 4x4x4 --alpha 1e999
2|--alpha|run -q -w gemm -b serial --reps 2 -s 4x4x4 --alpha 1,2
2|--alpha|run -q -w gemm -b serial --reps 2 -s 4x4x4 --alpha 5X
2|--alpha|run -q -w gemm -b serial --reps 2 -s 4x4x4 --alpha "$LONG"
2|needs a value|run -q -w gemm -b serial --reps 2 -s 4x4x4 --alpha
2|--beta|run -q -w gemm -b serial --reps 2 -s 4x4x4 --beta -inf
2|--beta|run -q -w gemm -b serial --reps 2 -s 4x4x4 --beta ''
2|given twice|run -q -w gemm -b serial --reps 2 -s 4x4x4 --beta 1 --beta 2
2|-|run -q -w gemm -b serial --reps 2 -s 4x4x4 --scalars 1,2,3
2|--scalars|run -q -w gemm -b serial --reps 2 -s 4x4x4 --scalars abc
2|--scalars|run -q -w gemm -b serial --reps 2 -s 4x4x4 --scalars 1,nan
0|-|run -q -w gemm -b serial --reps 2 -s 4x4x4 --scalars ,
2|sets scalar 1|run -q -w gemm -b serial --reps 2 -s 4x4x4 --alpha 2 --scalars 3
2|-|run -q -w gemm -b serial --reps 2 -s 4x4x4 --alpha 2 -p alpha=3
# unknown names
2|unknown workload|run -q -w bogus
2|-|run -q -w 'bogus*'
2|-|run -q -w '!bogus'
2|-|run -q -w map,,stream
2|-|run -q -w "$LONG"
2|-|run -q -w "$BAD"
2|-|run -q -w "$NL"
2|-|run -q -w map -b bogus -n 1K
2|-|run -q -w map -b cuda:99 -n 1K
2|-|run -q -w map -b serial:5 -n 1K
2|-|run -q -w map -b serial:-1 -n 1K
2|-|run -q -w map -b serial:abc -n 1K
2|-|run -q -w map -b serial:9223372036854775808 -n 1K
2|-|run -q -w map -b "$LONG" -n 1K
2|-|$RUN -n 1K -r bogus
2|-|$RUN -n 1K -r 'bogus*'
2|-|$RUN -n 1K -r "$BAD"
2|-|$RUN -n 1K -t f16
2|-|$RUN -n 1K -t F32
2|-|$RUN -n 1K -t u8
2|given twice|$RUN -n 1K -t f32 -t f64
2|--cache|$RUN -n 1K --cache hot
2|given twice|$RUN -n 1K --cache cold --cache warm
2|--scaling|$RUN -n 1K --scaling medium
# options: unknown, flags given values, at the end, arguments
2|unknown option|$RUN -n 1K --bogus
2|unknown option|$RUN -n 1K -x
2|unknown option|$RUN -n 1K "--$LONG"
2|unknown option|$RUN -n 1K "--$BAD"
2|unknown option|$RUN -n 1K "--a$NL"
2|ambiguous|$RUN -n 1K --s 5
2|takes no value|$RUN -n 1K --quiet=1
2|takes no value|$RUN -n 1K --full=1
2|takes no value|$RUN -n 1K --explain=1
2|takes no value|$RUN -n 1K --verbose=
2|unexpected argument|$RUN -n 1K extra
2|unexpected argument|$RUN -n 1K -- -n 5
2|needs a value|$RUN -n 1K -w
2|needs a value|$RUN -n 1K -b
2|needs a value|$RUN -n 1K -r
2|needs a value|$RUN -n 1K -p
2|needs a value|$RUN -n 1K -t
2|needs a value|$RUN -n 1K --seed
2|needs a value|$RUN -n 1K --csv
2|needs a value|$RUN -n 1K --json
2|needs a value|$RUN -n 1K --trace
2|needs a value|$RUN -n 1K --html
2|needs a value|$RUN -n 1K --db
2|needs a value|$RUN -n 1K -i
2|needs a value|$RUN -n 1K --matrix
2|needs a value|$RUN -n 1K --rhs
2|needs a value|$RUN -n 1K --solution
2|needs a value|$RUN -n 1K --precision
2|needs a value|$RUN -n 1K --max-time
# files: conflicts, the same file twice, an output over an input
2|given twice|$RUN -n 1K --csv a.csv --csv b.csv
2|same file|$RUN -n 1K --csv x --json x
2|same file|$RUN -n 1K --json x --html x
2|same file|$RUN -n 1K --json x --db x
2|-|$RUN -n 1K --json good.json --db good.json
2|-|$RUN -n 1K --csv ./x --json x
2|-|run -q -w histogram -b serial --reps 2 -i garbage --csv garbage
2|-|run -q -w histogram -b serial --reps 2 -i garbage --json ./garbage
2|-|run -q -w histogram -b serial --reps 2 -i garbage -n 1K
2|-|run -q -w histogram -b serial --reps 2 -i garbage --inputs random
2|given twice|run -q -w cg -b serial --reps 2 -i good.mtx --matrix good.mtx
2|-|$CG --solution good.mtx
2|-|$CG --rhs rhs.mtx --solution rhs.mtx
2|-|$CG --rhs rhs.mtx --solution ./rhs.mtx
2|-|$CG --json good.mtx
2|-|$CG --solution x.mtx --json x.mtx
2|-|$RUN -n 1K --solution x.mtx
2|-|$RUN -n 1K --rhs rhs.mtx
2|-|run -q -w map -b serial --reps 2 -i garbage
2|-|run -q -w map -b serial --reps 2 --matrix good.mtx
2|-|$CG --rhs good.mtx
2|-|$CG --rhs garbage
2|-|$CG -n 5
# the environment
2|KLADDER_MEMORY_LIMIT|KLADDER_MEMORY_LIMIT= $RUN -n 1K
2|KLADDER_MEMORY_LIMIT|KLADDER_MEMORY_LIMIT=-1 $RUN -n 1K
2|KLADDER_MEMORY_LIMIT|KLADDER_MEMORY_LIMIT=0 $RUN -n 1K
2|KLADDER_MEMORY_LIMIT|KLADDER_MEMORY_LIMIT=1e999 $RUN -n 1K
2|KLADDER_MEMORY_LIMIT|KLADDER_MEMORY_LIMIT=9223372036854775808 $RUN -n 1K
2|KLADDER_MEMORY_LIMIT|KLADDER_MEMORY_LIMIT=5X $RUN -n 1K
# list
2|unknown workload|list -w bogus
2|needs a non-empty value|list -w ''
2|-|list -w "$LONG"
2|-|list -w "$BAD"
2|takes no value|list --json=1
2|takes no value|list --all=1
2|-|list --fields -w map
2|unexpected argument|list extra
2|needs a value|list -w
2|unknown option|list --bogus
2|unknown option|list -n 5
# compare
2|-|compare
2|-|compare good.json
2|-|compare good.json other.json extra
2|-|compare - -
2|--threshold|compare --threshold -1 good.json other.json
2|--threshold|compare --threshold nan good.json other.json
2|--threshold|compare --threshold inf good.json other.json
2|--threshold|compare --threshold 1e999 good.json other.json
2|--threshold|compare --threshold abc good.json other.json
2|--threshold|compare --threshold 5X good.json other.json
2|--threshold|compare --threshold ' 0.1' good.json other.json
2|needs a non-empty value|compare --threshold '' good.json other.json
2|given twice|compare --threshold 1 --threshold 2 good.json other.json
2|--alpha|compare --alpha 0 good.json other.json
2|--alpha|compare --alpha 1 good.json other.json
2|--alpha|compare --alpha nan good.json other.json
2|--alpha|compare --alpha -0 good.json other.json
2|-|compare --field bogus good.json other.json
2|-|compare --field "$LONG" good.json other.json
2|-|compare --field median_s --csv x.csv good.json other.json
2|same file|compare --csv x --json x good.json other.json
2|an input|compare --csv good.json good.json other.json
2|an input|compare --json ./other.json good.json other.json
2|an input|compare --html good.json good.json other.json
2|needs a value|compare good.json other.json --csv
2|unknown option|compare --bogus good.json other.json
2|unknown option|compare "--$BAD" good.json other.json
2|unknown option|compare "--a$NL" good.json other.json
2|-|compare good.json "$LONG"
2|-|compare good.json "$NL"
# report
2|-|report
2|-|report good.json
2|-|report -o x.html
2|-|report good.json -o ''
2|-|report good.json -o
2|given twice|report good.json -o x.html -o y.html
2|-|report good.json -o x.html --db
2|-|report good.json -o x.html --db ''
2|-|report good.json -o x.html --db good.db --db good.db
2|-|report good.json -o x.html --bogus
2|-|report good.json -o x.html "--a$NL"
2|-|report good.json -o x.html "--$LONG"
2|-|report good.json -o x.html --machines h100
2|-|report --markdown good.json -o x.md --machines ''
2|-|report --markdown good.json -o x.md --db good.db
2|-|report good.json -o good.json
2|-|report good.json -o ./good.json
2|-|report --markdown good.json -o good.json
2|-|report good.json -o "$LONG"
2|-|report "$LONG" -o x.html
2|-|report "$NL" -o x.html
# explain
2|-|explain
2|-|explain -w
2|-|explain -w ''
2|-|explain -w bogus
2|-|explain -w map,reduce
2|-|explain -w 'map*'
2|-|explain -w "$LONG"
2|-|explain -w "$BAD"
2|-|explain -w "$NL"
2|-|explain -w map -n 0
2|-|explain -w map -n abc
2|-|explain -w map -n -1
2|-|explain -w map -n 1e999
2|-|explain -w map -n ''
2|-|explain -w map -b bogus
2|-|explain -w map -r bogus
2|-|explain -w map extra
2|-|explain -w map --bogus
2|-|explain -w map "--a$NL"
2|-|explain -w map --results
2|-|explain -w map --results ''
2|-|explain -w map -w reduce
2|-|explain -w map -n 1K -n 2K
2|-|explain -w map --results good.json --results other.json
2|-|explain -w map --help=1
# tune
2|-|tune -w
2|-|tune -w ''
2|-|tune -w bogus -o x.wisdom
2|-|tune -w "$LONG" -o x.wisdom
2|-|tune -w "$BAD" -o x.wisdom
2|-|tune -w "$NL" -o x.wisdom
2|-|tune -w reduce -b bogus -o x.wisdom
2|-|tune -w reduce -b "$NL" -o x.wisdom
2|-|tune -w reduce -b serial -n 0 -o x.wisdom
2|-|tune -w reduce -b serial -n abc -o x.wisdom
2|-|tune -w reduce -b serial -n 16K..1K:x4 -o x.wisdom
2|-|tune -w reduce -b serial -n 1K --reps 0 -o x.wisdom
2|-|tune -w reduce -b serial -n 1K --reps 1001 -o x.wisdom
2|-|tune -w reduce -b serial -n 1K --reps abc -o x.wisdom
2|-|tune -w reduce -b serial -n 1K --reps '' -o x.wisdom
2|-|tune -w reduce -b serial -n 1K --reps "1$NL" -o x.wisdom
2|-|tune -w reduce -b serial -n 1K --reps "$LONG" -o x.wisdom
2|-|tune -w reduce -b serial -n 1K --reps 5X -o x.wisdom
2|-|tune -w reduce -b serial -n 1K --reps 9223372036854775808 -o x.wisdom
2|-|tune -w reduce -b serial -n 1K -o
2|-|tune -w reduce -b serial -n 1K -o ''
2|-|tune -w reduce -b serial -n 1K -o x.wisdom -o y.wisdom
2|-|tune -w reduce -w map -b serial -n 1K -o x.wisdom
2|-|tune -w reduce -b serial -n 1K --reps 2 --reps 3 -o x.wisdom
2|-|tune -w reduce -b serial -n 1K -o x.wisdom --bogus
2|-|tune -w reduce -b serial -n 1K -o x.wisdom extra
2|-|tune -w reduce -b serial -n 1K -o x.wisdom "--a$NL"
2|-|tune --check good.wisdom other.wisdom
2|-|tune --check ''
1|-|tune --check good.json
EOF
[ "$have_history" = 1 ] && run_table <<'EOF'
# history
2|-|history
2|-|history --db
2|-|history --db ''
2|-|history --db missing.db
2|-|history --db good.db --threshold -1 --check
2|-|history --db good.db --threshold nan --check
2|-|history --db good.db --threshold inf --check
2|-|history --db good.db --threshold 101 --check
2|-|history --db good.db --threshold abc --check
2|-|history --db good.db --threshold "1$NL" --check
2|-|history --db good.db --csv --json
2|-|history --db good.db good.json
2|-|history --db good.db --import
2|-|history --db good.db --import good.json --check
2|-|history --db good.db --since bogus
2|-|history --db good.db --since 2024-13-45
2|-|history --db good.db --since "$LONG"
2|-|history --db good.db --bogus
2|-|history --db good.db "--a$NL"
2|-|history --db good.db --db other.db
2|-|history --db good.db -w map -w reduce
2|-|history --db good.db --since 2024-01-01 --since 2025-01-01
2|-|history --db good.db --machine a --machine b
0|-|history --db good.db -w bogus
2|-|history --db good.json --import good.json
2|-|history --db garbage --import good.json
EOF

# ---- every reader of a file against every kind of bad file
# KIND|PATH: the kinds (a case runs as nobody where KIND is unreadable).
kinds='missing|missing.json
directory|dir
empty|empty
unreadable|secret.json
pipe|fifo
zero|/dev/zero
proc|/proc/self/status
sparse|sparse
garbage|garbage'
# CODE|KINDS|ARGS, @F the file: KINDS the kinds it meets ('all', or
# names), each a case.
readers='2|all|compare good.json @F
2|all|compare @F good.json --csv x.csv
2|all|report @F -o x.html
2|all|report --markdown @F -o x.md
2|all|explain -w read --results @F
2|missing directory empty unreadable pipe zero proc|run -q -w histogram -b serial --reps 2 --warmup 0 -i @F
2|all|run -q -w cg -b serial --reps 2 --warmup 0 --matrix @F
2|all|$CG --rhs @F
1|all|tune --check @F
0|all|KLADDER_WISDOM=@F $RUN -n 1K --json -
2|all|report good.json -o x.html --db @F
2|all|history --db @F
2|all|history --db x.db --import @F
2|directory unreadable pipe zero proc sparse garbage|$RUN -n 1K --db @F'
while IFS='|' read -r code which args; do
  case $args in *history*) [ "$have_history" = 1 ] || continue ;; esac
  while IFS='|' read -r kind path; do
    [ "$which" = all ] || case " $which " in *" $kind "*) ;; *) continue ;; esac
    [ -e "$path" ] || [ -L "$path" ] || [ "$kind" = missing ] || continue
    nobody=
    [ "$kind" = unreadable ] && nobody=@nobody
    eval "set -- $nobody $(echo "$args" | sed "s|@F|$path|g")"
    case_ "$code" - "$@"
  done <<EOF
$kinds
EOF
done <<EOF
$readers
EOF

# ---- every writer against every kind of output that cannot be written
# KIND|PATH (read-only: run as nobody; full: a link of our own to
# /dev/full, which must stay a link).
outs='directory|dir
missing|missing/out
read-only|rodir/out
full|full
pipe|fifo'
# CODE|KINDS|ARGS, @O the output ('all', or the kinds' names). A device
# or a pipe whose state shows only when written is written when the run
# ends: the table comes first (@late).
writers='2|all|$RUN -n 1K --csv @O
2|all|$RUN -n 1K --json @O
2|all|$RUN -n 1K --trace @O
2|all|@late $RUN -n 1K --html @O
2|all|$RUN -n 1K --db @O
2|directory missing read-only pipe|$CG --solution @O
3|full|@late $CG --solution @O
2|all|report good.json -o @O
2|all|report --markdown good.json -o @O
2|all|compare good.json other.json --csv @O
2|all|compare good.json other.json --json @O
2|all|compare good.json other.json --html @O
2|all|tune -q -w reduce -b serial -n 1K --reps 2 -o @O'
while IFS='|' read -r code which args; do
  case $args in *--db*) [ "$have_history" = 1 ] || continue ;; esac
  while IFS='|' read -r kind path; do
    [ "$which" = all ] || case " $which " in *" $kind "*) ;; *) continue ;; esac
    [ -e "$path" ] || [ -L "$path" ] || [ "$kind" = missing ] || continue
    nobody=
    [ "$kind" = read-only ] && nobody=@nobody
    eval "set -- $nobody $(echo "$args" | sed "s|@O|$path|g")"
    case_ "$code" - "$@"
  done <<EOF
$outs
EOF
done <<EOF
$writers
EOF

# ---- standard output that cannot be written: /dev/full
run_table <<'EOF'
3|-|@stdout-full list
3|-|@stdout-full list --json
3|-|@stdout-full --help
3|-|@stdout-full run --help
3|-|@stdout-full --version
3|-|@stdout-full $RUN -n 1K
2|-|@stdout-full $RUN -n 1K --csv -
3|-|@stdout-full explain -w map
2|-|@stdout-full compare good.json other.json
2|-|@stdout-full report good.json -o -
3|-|@stdout-full tune --check good.wisdom
EOF

seconds=$(($(date +%s) - started))
[ "$failures" = 0 ] &&
  echo "bad arguments: $tried cases, each refused in one line with its exit code, nothing changed ($seconds s)"
[ "$failures" = 0 ] || echo "bad arguments: $failures of $tried cases failed ($seconds s)"
[ "$failures" = 0 ]
