# GLSL compute shaders are compiled to SPIR-V at build time and embedded as
# C++ arrays (glslangValidator --vn writes the header). A shader that does not
# compile fails the build.
find_program(GLSLANG_VALIDATOR glslangValidator REQUIRED)

# rgfx_shader(OUT_HEADERS_VAR SOURCE file.comp NAME kSymbol [DEFINES A=1 ...])
# Writes ${CMAKE_CURRENT_BINARY_DIR}/shaders/<symbol>.h declaring
# `const uint32_t <symbol>[]` and appends it to OUT_HEADERS_VAR.
function(rgfx_shader out_var)
  cmake_parse_arguments(ARG "" "SOURCE;NAME" "DEFINES;DEPENDS" ${ARGN})
  set(src ${CMAKE_CURRENT_SOURCE_DIR}/${ARG_SOURCE})
  set(out ${CMAKE_CURRENT_BINARY_DIR}/shaders/${ARG_NAME}.h)
  set(defs)
  foreach(d ${ARG_DEFINES})
    list(APPEND defs -D${d})
  endforeach()
  file(GLOB glsl_includes ${CMAKE_CURRENT_SOURCE_DIR}/shaders/*.glsl ${CMAKE_CURRENT_SOURCE_DIR}/*.h)
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/shaders
    COMMAND ${GLSLANG_VALIDATOR} -V --quiet --target-env vulkan1.2 -S comp
            -I${CMAKE_CURRENT_SOURCE_DIR} -I${CMAKE_CURRENT_SOURCE_DIR}/shaders ${defs}
            --vn ${ARG_NAME} -o ${out} ${src}
    DEPENDS ${src} ${glsl_includes} ${ARG_DEPENDS}
    COMMENT "GLSL -> SPIR-V ${ARG_SOURCE} (${ARG_NAME})"
    VERBATIM)
  set(${out_var} ${${out_var}} ${out} PARENT_SCOPE)
endfunction()
