# Checks one case file's outcome in its batch's compile (batch_compile.cmake: the case files
# that share a prelude are compiled together, once with OG_FAIL and once without; LOG holds what
# the compiler said and LOG.rc its exit status). Only the diagnostics located in the case's own
# file count; the batch's own tests check that no error lies anywhere else.
#   -DCXX_ID=GNU|Clang -DSRC=file -DLOG=batch record -DMODE=fail|ok [-DEXPECT=text] [-DFAULT=family]
# MODE=fail: the compile with -DOG_FAIL must give exactly one error in the case file, and its line must
# - start with the case file's own FILE:LINE:, LINE inside the `#ifdef OG_FAIL` block (the rule as
#   written, never a library header);
# - name the message family `optgrammar::rule_error::FAULT` when the case gives one (the fault
#   kind readable from the error), and
# - carry EXPECT, the message in words (g++ prints the whole catalogue text as the family's
#   template argument; clang prints only the family and the message's subject, so for clang a
#   case with a FAULT is checked for the family and for its subject being part of EXPECT).
# MODE=ok: the same file without OG_FAIL (the compiling twin) gives no error.
string(REPLACE "<semicolon>" ";" EXPECT "${EXPECT}")
string(REPLACE "\\;" ";" EXPECT "${EXPECT}")  # file(STRINGS) escapes ';' in what it read
if(NOT EXISTS ${LOG}.rc)
  message(FATAL_ERROR "no record of the batch's compile (${LOG}.rc): its setup test did not run")
endif()
file(READ ${LOG}.rc rc)
file(READ ${LOG} all)
# the diagnostics located in this file, each with the lines that follow it up to the next one
string(REPLACE ";" "<semicolon>" all_one "${all}")  # a message may hold ';', a CMake list separator
string(REPLACE "\n" ";" all_lines "${all_one}")
set(err "")
set(mine FALSE)
foreach(l IN LISTS all_lines)
  if(l MATCHES "^[^ ].*:[0-9]+:[0-9]+: (error|warning|note): " OR l MATCHES "^In file included from ")
    string(FIND "${l}" "${SRC}:" at)
    if(at EQUAL 0)
      set(mine TRUE)
    elseif(NOT l MATCHES ": note: ")
      set(mine FALSE)
    endif()
  endif()
  if(mine)
    string(APPEND err "${l}\n")
  endif()
endforeach()
string(REPLACE "<semicolon>" ";" err "${err}")
if(MODE STREQUAL "ok")
  if(NOT err STREQUAL "")
    message(FATAL_ERROR "the compiling twin does not compile:\n${err}")
  endif()
  return()
endif()
if(err STREQUAL "")
  message(FATAL_ERROR "compiled, but must fail with: ${EXPECT}")
endif()

# the lines of the OG_FAIL block
file(STRINGS ${SRC} lines)
set(n 0)
set(from -1)
set(to -1)
foreach(line IN LISTS lines)
  math(EXPR n "${n} + 1")
  if(line MATCHES "^#ifdef OG_FAIL")
    set(from ${n})
  elseif(line MATCHES "^#else" AND from GREATER 0 AND to LESS 0)
    set(to ${n})
  endif()
endforeach()

string(REPLACE ";" "<semicolon>" err_one "${err}")  # a message may hold ';', a CMake list separator
string(REGEX MATCHALL "[^\n]*: error: [^\n]*" errors "${err_one}")
list(LENGTH errors n_errors)
list(GET errors 0 first)
string(REPLACE "<semicolon>" ";" first "${first}")
if(NOT n_errors EQUAL 1)
  message(FATAL_ERROR "${n_errors} errors for one bad rule; the first says: ${first}\n${err}")
endif()
string(REGEX MATCH "^(.*):([0-9]+):[0-9]+: error: " _ "${first}")
set(at_file "${CMAKE_MATCH_1}")
set(at_line "${CMAKE_MATCH_2}")
if(NOT at_file STREQUAL SRC OR at_line LESS from OR at_line GREATER to)
  message(FATAL_ERROR "the error is not on the rule's own line (${SRC}:${from}..${to}):\n${first}")
endif()

set(norm "${first}")
string(REPLACE "\\\"" "\"" norm "${norm}")
string(REPLACE "\\'" "'" norm "${norm}")
if(FAULT AND CXX_ID STREQUAL "GNU" AND NOT norm MATCHES ": error: (invalid use of incomplete type|cannot convert) ")
  # the words g++ opens with say that the rule is what failed (with `NAME + N`, not the `+`)
  message(FATAL_ERROR "the error does not open with 'invalid use of incomplete type' or 'cannot convert':\n${first}")
endif()
if(FAULT)
  string(FIND "${norm}" "optgrammar::rule_error::${FAULT}<" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the error does not name the family rule_error::${FAULT}:\n${first}")
  endif()
endif()
if(FAULT AND CXX_ID STREQUAL "Clang")
  # the subject as clang prints a character pack: 'y' or 'i', 'n'
  string(REGEX MATCH "<'.*'>" chars "${norm}")
  string(REGEX REPLACE "^<'|'>$" "" subject "${chars}")
  string(REPLACE "', '" "" subject "${subject}")
  string(FIND "${EXPECT}" "${subject}" at)
  if(NOT subject STREQUAL "" AND at EQUAL -1)
    message(FATAL_ERROR "the error's subject '${subject}' is not in the message: ${EXPECT}\n${first}")
  endif()
else()
  string(FIND "${norm}" "${EXPECT}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "first error line does not say: ${EXPECT}\nit says: ${first}")
  endif()
endif()
message(STATUS "the one error: ${first}")
