# The rule language is <optgrammar/rules.hpp> alone, and it stays light: a rule file that splits
# compiles with that header only, and the header reaches neither the split check
# (engine/autosplit_check.hpp), the indexing maps (index/), the driver (engine/driver.hpp),
# which a program compiles once, where it runs rules, nor the std::pmr adapter of a graph's records
# (core/pmr_records.hpp, whose <memory_resource> is dear to compile).
#   -DCXX=compiler -DSRC=rule file -DINC=include dir
execute_process(COMMAND ${CXX} -std=c++20 -fsyntax-only -Wall -Wextra -Wpedantic -Werror -I${INC} ${SRC}
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "a rule file with rules.hpp alone does not compile:\n${err}")
endif()
execute_process(COMMAND ${CXX} -std=c++20 -I${INC} -MM ${SRC} RESULT_VARIABLE rc OUTPUT_VARIABLE deps ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "listing the headers failed:\n${err}")
endif()
string(REGEX MATCHALL "optgrammar/(index/[^ \\\n]+|engine/autosplit_check.hpp|engine/driver.hpp|core/pmr_records.hpp)" heavy "${deps}")
if(heavy)
  message(FATAL_ERROR "rules.hpp reaches what only a program that runs rules needs: ${heavy}")
endif()
string(FIND "${deps}" "optgrammar/rules.hpp" at)
if(at EQUAL -1)
  message(FATAL_ERROR "the include list does not name rules.hpp: ${deps}")
endif()
message(STATUS "rules.hpp: compiles the rule file, reaches no split check, index map, driver or pmr adapter")
