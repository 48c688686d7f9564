# Compiles one batch of case files (a translation unit that includes them one after the other,
# written by CMakeLists.txt) once, so that the library's headers are parsed once for the batch
# rather than once per case, and records what the compiler said for the cases' own checks
# (check_compile.cmake) and the batch's (MODE=check below).
#   -DCXX=compiler -DCXX_ID=GNU|Clang -DINC=include dir -DTU=batch file -DLOG=output file
#   -DMODE=fail|ok|check-fail|check-ok|clean
# fail|ok: compiles TU (with -DOG_FAIL for fail) and writes the exit status to LOG.rc and the
#   diagnostics to LOG; it fails only when it cannot write them.
# check-fail: every error in LOG is located in one of the batch's case files (an error in a
#   library header, or none at all because the compile stopped, is the batch's failure: each case
#   checks only its own lines).
# check-ok: the batch compiled.
# clean: removes LOG and LOG.rc once every test that reads them has run, so that no later run
#   reads an old record (a case's test without its setup test finds none and says so).
if(MODE STREQUAL "clean")
  file(REMOVE ${LOG} ${LOG}.rc)
  return()
endif()
if(MODE STREQUAL "fail" OR MODE STREQUAL "ok")
  set(flags -std=c++20 -fsyntax-only -Wall -Wextra -Wpedantic -Werror -I${INC})
  if(CXX_ID STREQUAL "Clang")
    list(APPEND flags -ferror-limit=0)  # every case's error, not the first 20
  else()
    list(APPEND flags -fmax-errors=0)
  endif()
  if(MODE STREQUAL "fail")
    list(APPEND flags -DOG_FAIL)
  endif()
  execute_process(COMMAND ${CXX} ${flags} ${TU} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  file(WRITE ${LOG} "${err}")
  file(WRITE ${LOG}.rc "${rc}")
  message(STATUS "${CXX} on ${TU}: exit status ${rc}")
  return()
endif()

if(NOT EXISTS ${LOG}.rc)
  message(FATAL_ERROR "no record of the batch's compile (${LOG}.rc): its setup test did not run")
endif()
file(READ ${LOG}.rc rc)
file(READ ${LOG} err)
if(MODE STREQUAL "check-ok")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the compiling twins of ${TU} do not compile together (exit status ${rc}):\n${err}")
  endif()
  return()
endif()

# the batch's case files, as its #include lines name them
file(STRINGS ${TU} includes REGEX "^#include \"")
set(cases)
foreach(i IN LISTS includes)
  string(REGEX REPLACE "^#include \"(.*)\"$" "\\1" c "${i}")
  list(APPEND cases "${c}")
endforeach()
if(rc EQUAL 0)
  message(FATAL_ERROR "${TU}: every case compiled under OG_FAIL")
endif()
string(REPLACE ";" "<semicolon>" err_one "${err}")
string(REGEX MATCHALL "[^\n]*(fatal error|error): [^\n]*" errors "${err_one}")
set(stray)
foreach(e IN LISTS errors)
  set(own FALSE)
  foreach(c IN LISTS cases)
    string(FIND "${e}" "${c}:" at)
    if(at EQUAL 0)
      set(own TRUE)
    endif()
  endforeach()
  if(NOT own OR e MATCHES "fatal error: ")
    string(REPLACE "<semicolon>" ";" e "${e}")
    string(APPEND stray "${e}\n")
  endif()
endforeach()
if(stray)
  message(FATAL_ERROR "errors outside the case files:\n${stray}\nall output:\n${err}")
endif()
