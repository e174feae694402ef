#!/bin/sh
# field_names.sh SOURCE: the readers and writers of results outside the
# core (the command, src/cli, and the results layer, src/results) name no
# field of a result by a text of their own: they read a results file
# through the library (kl_results_read, its views and kl_results_number)
# and write a field's key from the field table (kl__field_key, KL__F_
# ids), so that the table (src/core/fields.def) is the one place a field
# is named. A field's name is looked for where it would
# be a key: an argument of the JSON reader's kl__doc_* calls, of json_key,
# a key written literally (\"NAME\": ), or the first of a list of names
# ({"NAME", ...}); option tables (args.h's) are options, not fields, and a
# line marked `own key` is a key of the command's own output format that
# happens to share a field's name.
src=$1
def="$src/src/core/fields.def"
[ -r "$def" ] || { echo "FAIL: no $def"; exit 1; }
names=$(sed -n 's/^KL__FIELD(\([a-z_0-9]*\),.*/\1/p' "$def")
[ -n "$names" ] || { echo "FAIL: no field in $def"; exit 1; }
found=0
for n in $names; do
  hits=$(grep -nE "kl__doc_[a-z]+\([^;]*\"$n\"|json_key\([^,]*, *\"$n\"|\\\\\"$n\\\\\": |\\{ *\"$n\"," \
    "$src"/src/cli/*.c "$src"/src/results/*.c | grep -vE "ARG_(FLAG|VALUE|LIST)" | grep -v "own key")
  if [ -n "$hits" ]; then
    echo "field '$n' named in src/cli or src/results:"
    echo "$hits"
    found=$((found + 1))
  fi
done
[ "$found" = 0 ] || { echo "FAIL: $found fields named outside the table"; exit 1; }
echo "src/cli and src/results name no field outside the field table ($(echo "$names" | wc -w) fields)"
