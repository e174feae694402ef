#!/usr/bin/env bash
# residue.sh SOURCE_DIR: the product text carries no development residue.
#
# Checked: every file under src/ (LESSONS.md included; NOTES.md too while
# any is left), README.md, CHANGELOG.md and every file under docs/ except
# docs/performance.md and docs/results/. Fails (exit 1) with FILE:LINE:
# TEXT for each line that holds
#
#   - a commit hash: a token of 7 to 40 lowercase hex digits, holding at
#     least one digit and one letter a-f, bounded by characters that are
#     neither letters, digits nor '_'. Not a hash: a token after "0x" or
#     "0X" (a hex constant), after '#' (a colour), after '.' or followed
#     by '.' and a digit (a decimal fraction or a float's digits, as in
#     3.5887879071499520e-07), or one that is digits with a single 'e'
#     among them (a float's exponent, 1000000e3);
#   - an ISO date: 20YY-MM-DD;
#   - an issue reference: "issue N" or "issues N" (any case, '#'
#     optional: "issue #31"; not a rate, as in "an SM issues 1.75 warp
#     instructions" or "issue 78.4%"), or "#N" with N of two digits or
#     more, not after a letter, a digit or '&' (an HTML entity, "&#39;")
#     and not a CSS colour in a declaration ("color:#555",
#     "border:1px solid #999").
#
# README.md's summary (between "<!-- summary -->" and "<!-- end summary
# -->"), quoted from docs/performance.md with its runs' dates, is not
# read. Exit 0 when no line does, 2 on a usage error.
set -u

src=${1:-}
if [ -z "$src" ] || [ ! -d "$src" ]; then
  echo "usage: $0 SOURCE_DIR" >&2
  exit 2
fi
cd "$src" || exit 2

files=()
while IFS= read -r -d '' f; do
  files+=("$f")
done < <(
  {
    [ -d src ] && find src -type f -print0
    [ -f README.md ] && printf '%s\0' README.md
    [ -f CHANGELOG.md ] && printf '%s\0' CHANGELOG.md
    [ -d docs ] && find docs -type f ! -path 'docs/results/*' \
      ! -path docs/performance.md -print0
  } | sort -z
)

[ ${#files[@]} -eq 0 ] && { echo "residue: no files under $src" >&2; exit 2; }

perl -ne '
  BEGIN { $bad = 0; $quoted = 0 }
  my $line = $_;
  chomp $line;
  if ($ARGV eq "README.md" && ($quoted || $line eq "<!-- summary -->")) {
    $quoted = $line ne "<!-- end summary -->";
    close ARGV if eof;
    next;
  }
  my @why;
  # Commit hashes.
  while ($line =~ /(?<![0-9A-Za-z_])([0-9a-f]{7,40})(?![0-9A-Za-z_])/g) {
    my ($tok, $at) = ($1, $-[1]);
    next unless $tok =~ /[0-9]/ && $tok =~ /[a-f]/;
    my $before = substr($line, 0, $at);
    my $after = substr($line, $at + length $tok);
    next if $before =~ /0[xX]$/ || $before =~ /[#.]$/;
    next if $after =~ /^\.[0-9]/;
    next if $tok =~ /^[0-9]+e[0-9]*$/;
    push @why, "hash $tok";
  }
  # ISO dates.
  push @why, "date $1" while $line =~ /(?<![0-9])(20[0-9]{2}-[01][0-9]-[0-3][0-9])(?![0-9])/g;
  # Issue references.
  push @why, "issue \"$1\""
    while $line =~ /\b(issues? +#?[0-9]+)(?![0-9A-Za-z_%]|[.,][0-9])/gi;
  while ($line =~ /(?<![0-9A-Za-z&_])(#[0-9]{2,})(?![0-9A-Za-z_])/g) {
    my ($tok, $at) = ($1, $-[1]);
    my $before = substr($line, 0, $at);
    # A CSS colour: after "property:" in the same declaration.
    next if length($tok) == 4 || length($tok) == 7
      and $before =~ /[a-z-]+:[^;{}]*$/;
    push @why, "issue \"$tok\"";
  }
  if (@why) {
    print "$ARGV:$.: ", join(", ", @why), ": $line\n";
    $bad = 1;
  }
  close ARGV if eof;    # $. counts each file from 1
  END { exit $bad }
' "${files[@]}"
status=$?
if [ $status -ne 0 ]; then
  echo "residue: development residue above (hashes, dates, issue numbers)" >&2
  exit 1
fi
echo "residue: ${#files[@]} files clean"
