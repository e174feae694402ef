# The manual's command page (docs/command.md) as a man page, kladder(1):
# the same text, so that `man kladder` and the manual never differ.
#   awk -v version=V -v summary=TEXT -f md2man.awk docs/command.md > kladder.1
# It reads the Markdown the manual is written in: "# " the title (left
# out: NAME is "kladder \- summary"), "## " and "### " headings,
# paragraphs, "- " lists, fenced or indented code, tables (each row a
# line), `code`, **bold** and [text](link) (the text kept); the few
# non-ASCII characters the manual uses as roff's names for them. POSIX awk:
# no extension of gawk's.

# UTF-8 punctuation and signs as roff's glyph names.
function glyphs(s) {
  gsub(/—/, "\\(em", s)
  gsub(/–/, "\\(en", s)
  gsub(/×/, "\\(mu", s)
  gsub(/µ/, "\\(mc", s)
  gsub(/≤/, "\\(<=", s)
  gsub(/≥/, "\\(>=", s)
  gsub(/→/, "\\(->", s)
  gsub(/←/, "\\(<-", s)
  gsub(/’/, "'", s)
  gsub(/‘/, "`", s)
  gsub(/“|”/, "\"", s)
  gsub(/…/, "...", s)
  gsub(/²/, "\\(S2", s)
  gsub(/³/, "\\(S3", s)
  gsub(/≈/, "\\(~~", s)
  gsub(/±/, "\\(+-", s)
  gsub(/·/, "\\(pc", s)
  return s
}

# Roff's special characters escaped, then the inline marks: `code` and
# **bold** in bold, *emphasis* in italics, links as their text.
function inline(s,    out, i, c, n) {
  gsub(/\\/, "\\e", s)
  # A line that starts with . or ' would be a request.
  if (s ~ /^[.']/) s = "\\&" s
  while (match(s, /\[[^]]*\]\([^)]*\)/)) {
    n = RSTART
    c = substr(s, RSTART + 1)
    c = substr(c, 1, index(c, "]") - 1)
    s = substr(s, 1, n - 1) c substr(s, RSTART + RLENGTH)
  }
  out = ""
  while (match(s, /`[^`]*`/)) {
    out = out substr(s, 1, RSTART - 1) "\\fB" \
          substr(s, RSTART + 1, RLENGTH - 2) "\\fR"
    s = substr(s, RSTART + RLENGTH)
  }
  s = out s
  out = ""
  while (match(s, /\*\*[^*]+\*\*/)) {
    out = out substr(s, 1, RSTART - 1) "\\fB" \
          substr(s, RSTART + 2, RLENGTH - 4) "\\fR"
    s = substr(s, RSTART + RLENGTH)
  }
  s = out s
  out = ""
  while (match(s, /\*[^* ][^*]*\*/)) {
    out = out substr(s, 1, RSTART - 1) "\\fI" \
          substr(s, RSTART + 1, RLENGTH - 2) "\\fR"
    s = substr(s, RSTART + RLENGTH)
  }
  gsub(/-/, "\\-", out)
  gsub(/-/, "\\-", s)
  return glyphs(out s)
}

function upper(s) { return toupper(s) }

function verbatim(line) {
  gsub(/\\/, "\\e", line)
  gsub(/-/, "\\-", line)
  if (line ~ /^[.']/) line = "\\&" line
  return glyphs(line)
}

BEGIN { code = 0; titled = 0 }

# Fenced code: as it is, no filling.
/^```/ {
  if (!code) { print ".PP"; print ".nf"; print ".RS 2" }
  else { print ".RE"; print ".fi" }
  code = !code
  next
}
code {
  print verbatim($0)
  next
}
# Indented code (four spaces, outside a list): as it is too.
/^    / && !listing {
  if (!indented) { print ".PP"; print ".nf"; print ".RS 2" }
  indented = 1
  print verbatim(substr($0, 5))
  next
}
indented {
  print ".RE"
  print ".fi"
  indented = 0
  # The page's first code is its synopsis; what follows describes.
  if (synopsis) { print ".SH DESCRIPTION"; synopsis = 0; blank = 0 }
}

/^# / && !titled {
  print ".TH KLADDER 1 \"\" \"kladder " version "\" \"kladder manual\""
  print ".SH NAME"
  print "kladder \\- " summary
  print ".SH SYNOPSIS"
  titled = 1
  synopsis = 1
  next
}
/^## / { synopsis = 0; print ".SH " upper(inline(substr($0, 4))); next }
/^### / { print ".SS " inline(substr($0, 5)); next }
/^#### / { print ".SS " inline(substr($0, 6)); next }
/^<!--/ { next }
/^[ \t]*$/ { blank = 1; next }
END { if (code || indented) { print ".RE"; print ".fi" } }
/^\| *---/ { next }
/^\|/ {
  row = $0
  gsub(/^\| */, "", row)
  gsub(/ *\|$/, "", row)
  gsub(/ *\| */, "  ", row)
  print ".br"
  print inline(row)
  blank = 0
  next
}
/^[-*] / {
  print ".IP \\(bu 2"
  print inline(substr($0, 3))
  blank = 0
  listing = 1
  next
}
/^  +[^ ]/ && listing && !blank {
  sub(/^ +/, "")
  print inline($0)
  next
}
{
  if (blank || listing) print ".PP"
  blank = 0
  listing = 0
  print inline($0)
}
