# Drives the Hexagon cross build of the HVX kernel tests from the host build and registers the
# programs as CTest tests run by qemu-hexagon-static. Included from tests/fold/CMakeLists.txt.
find_program(OPTGRAMMAR_HEXAGON_CLANG clang++-14)
find_program(OPTGRAMMAR_HEXAGON_LLD ld.lld-14)
find_program(OPTGRAMMAR_QEMU_HEXAGON qemu-hexagon-static)
if(NOT OPTGRAMMAR_HEXAGON_CLANG OR NOT OPTGRAMMAR_HEXAGON_LLD OR NOT OPTGRAMMAR_QEMU_HEXAGON)
  message(STATUS "fold: HVX tests skipped: need clang++-14, ld.lld-14 and qemu-hexagon-static "
                 "(tools/install-deps.sh installs them)")
  return()
endif()

include(ExternalProject)
set(_hex_archs v67 v68)
set(_hex_groups elementwise quantized layout)
set(_hex_bin ${CMAKE_CURRENT_BINARY_DIR}/hexagon-build)
set(_hex_products)
foreach(arch IN LISTS _hex_archs)
  foreach(group IN LISTS _hex_groups)
    list(APPEND _hex_products ${_hex_bin}/fold_hvx_${group}_${arch})
  endforeach()
endforeach()

string(REPLACE ";" "," _hex_archs_arg "${_hex_archs}")
string(REPLACE ";" "," _hex_groups_arg "${_hex_groups}")
# BUILD_ALWAYS: the inner Ninja decides what is stale (the kernels are headers outside it).
ExternalProject_Add(fold_hexagon
  SOURCE_DIR ${CMAKE_CURRENT_SOURCE_DIR}/hexagon
  BINARY_DIR ${_hex_bin}
  CMAKE_GENERATOR ${CMAKE_GENERATOR}
  CMAKE_ARGS
    -DCMAKE_TOOLCHAIN_FILE=${PROJECT_SOURCE_DIR}/cmake/hexagon-clang14.cmake
    -DCMAKE_BUILD_TYPE=Release
    -DOPTGRAMMAR_INCLUDE_DIR=${PROJECT_SOURCE_DIR}/include
    -DFOLD_TESTS_DIR=${CMAKE_CURRENT_SOURCE_DIR}
    -DFOLD_HEXAGON_ARCHS=${_hex_archs_arg}
    -DFOLD_HEXAGON_GROUPS=${_hex_groups_arg}
    -DOPTGRAMMAR_WERROR=${OPTGRAMMAR_WERROR}
  LIST_SEPARATOR ,
  BUILD_ALWAYS ON
  INSTALL_COMMAND ""
  BUILD_BYPRODUCTS ${_hex_products}
  USES_TERMINAL_BUILD OFF)

foreach(arch IN LISTS _hex_archs)
  foreach(group IN LISTS _hex_groups)
    add_test(NAME fold.hvx.${arch}.${group} COMMAND ${OPTGRAMMAR_QEMU_HEXAGON} ${_hex_bin}/fold_hvx_${group}_${arch})
    # QEMU 7.2 knows one Hexagon CPU model, v67; it runs v68 ELF files only when told so.
    set_tests_properties(fold.hvx.${arch}.${group} PROPERTIES
      ENVIRONMENT QEMU_CPU=v67
      PASS_REGULAR_EXPRESSION "fold-hvx: [0-9]+ checks passed, 0 failed"
      FAIL_REGULAR_EXPRESSION "FAIL"
      TIMEOUT 300)
  endforeach()
endforeach()
