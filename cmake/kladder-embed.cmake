# What the generators that embed files in the build as C strings share
# (kladder-cl-sources.cmake, kladder-lessons.cmake), included by them.

# kl_embed_literal(TEXT OUT): TEXT as a C string literal, a literal of its
# own per line (adjacent literals join), its backslashes, quotes,
# question marks (trigraphs) and carriage returns escaped.
function(kl_embed_literal text out)
  string(REPLACE "\\" "\\\\" text "${text}")
  string(REPLACE "\"" "\\\"" text "${text}")
  string(REPLACE "?" "\\?" text "${text}")
  string(REPLACE "\r" "\\r" text "${text}")
  string(REPLACE "\n" "\\n\"\n    \"" text "${text}")
  set(${out} "\"${text}\"" PARENT_SCOPE)
endfunction()

# kl_embed_write(PATH TEXT): PATH holds TEXT, rewritten only where its text
# differs (so that what depends on it is not rebuilt for nothing).
function(kl_embed_write path text)
  set(old "")
  if(EXISTS "${path}")
    file(READ "${path}" old)
  endif()
  if(NOT old STREQUAL "${text}")
    file(WRITE "${path}" "${text}")
  endif()
endfunction()
