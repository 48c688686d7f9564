# The README's example compiles as written: its ```cpp block, with only the includes it shows.
#   -DCXX=compiler -DREADME=README.md -DINC=include dir -DOUT=scratch file
file(READ ${README} text)
string(FIND "${text}" "```cpp\n" begin)
if(begin EQUAL -1)
  message(FATAL_ERROR "${README} has no ```cpp block")
endif()
math(EXPR begin "${begin} + 7")
string(SUBSTRING "${text}" ${begin} -1 rest)
string(FIND "${rest}" "```" end)
string(SUBSTRING "${rest}" 0 ${end} code)
file(WRITE ${OUT} "${code}")
execute_process(COMMAND ${CXX} -std=c++20 -fsyntax-only -Wall -Wextra -Wpedantic -Werror -I${INC} ${OUT}
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the README's example does not compile:\n${code}\n${err}")
endif()
