# The two front ends reject exactly the same rules. A corpus file holds many rules, some of them
# ill-formed; the C++ compiler reports each rule it rejects ("rule at FILE:LINE: ..." in the
# RULE_ERROR, or an error located on the rule's line), og-parse each rule it rejects or warns
# about (FILE:LINE:COL). The two sets of line numbers must be equal.
#   -DCXX=compiler -DCXX_ID=GNU|Clang -DINC=include dir -DOG_PARSE=og-parse -DSRC=corpus file
get_filename_component(name ${SRC} NAME)
if(CXX_ID STREQUAL "Clang")
  set(limit -ferror-limit=0)
else()
  set(limit -fmax-errors=0)
endif()
execute_process(COMMAND ${CXX} -std=c++20 -fsyntax-only ${limit} -Wall -Wextra -Wpedantic -Werror -I${INC} ${SRC}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(REPLACE "', '" "" err "${err}")  # clang prints RULE_ERROR's text as a list of characters
string(REGEX MATCHALL "rule at ${name}:[0-9]+" in_text "${err}")
string(REGEX MATCHALL "\n[^\n]*${name}:[0-9]+:[0-9]+: error" at_line "\n${err}")
set(cxx "")
foreach(m IN LISTS in_text at_line)
  string(REGEX MATCH "${name}:([0-9]+)" _ "${m}")
  list(APPEND cxx ${CMAKE_MATCH_1})
endforeach()
list(REMOVE_DUPLICATES cxx)
list(SORT cxx COMPARE NATURAL)

execute_process(COMMAND ${OG_PARSE} --no-lint ${SRC} RESULT_VARIABLE rc2 OUTPUT_QUIET ERROR_VARIABLE err2)
string(REGEX MATCHALL "${name}:[0-9]+:[0-9]+: (error|warning)" diags "${err2}")
set(ogp "")
foreach(m IN LISTS diags)
  string(REGEX MATCH "${name}:([0-9]+)" _ "${m}")
  list(APPEND ogp ${CMAKE_MATCH_1})
endforeach()
list(REMOVE_DUPLICATES ogp)
list(SORT ogp COMPARE NATURAL)

list(LENGTH cxx n_cxx)
list(LENGTH ogp n_ogp)
if(n_cxx EQUAL 0)
  message(FATAL_ERROR "the compiler rejected no rule of ${name}: the corpus must hold ill-formed rules")
endif()
if(NOT cxx STREQUAL ogp)
  set(only_cxx ${cxx})
  list(REMOVE_ITEM only_cxx ${ogp})
  set(only_ogp ${ogp})
  list(REMOVE_ITEM only_ogp ${cxx})
  message(FATAL_ERROR "the front ends disagree on ${name}: rejected only by C++ at lines [${only_cxx}], "
                      "only by og-parse at lines [${only_ogp}]")
endif()
message(STATUS "${name}: both front ends reject the same ${n_cxx} rules")
