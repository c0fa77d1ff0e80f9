# Installs the build tree into a scratch prefix, then configures, builds and runs the example
# consumer against it, as a risk platform would.
file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${prefix}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "install failed")
endif()

# Each public header alone, and the consumer, with a plain C++17 compiler and no CUDA include
# path: only the installed include folder.
file(GLOB headers "${prefix}/include/mcprice/*.hpp")
foreach(header ${headers})
  get_filename_component(name "${header}" NAME)
  file(WRITE "${WORK_DIR}/header_alone.cpp" "#include <mcprice/${name}>\nint main() { return 0; }\n")
  execute_process(COMMAND "${CXX}" -std=c++17 -fsyntax-only "-I${prefix}/include" "${WORK_DIR}/header_alone.cpp"
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "mcprice/${name} does not compile as plain C++17 without CUDA headers:\n${err}")
  endif()
endforeach()
if(SHARED)
  # The shared engine is all a consumer links.
  execute_process(COMMAND "${CXX}" -std=c++17 "-I${prefix}/include" "${CONSUMER_DIR}/main.cpp" -o
                          "${WORK_DIR}/plain_consumer" "-L${prefix}/lib" -lmcprice_engine "-Wl,-rpath,${prefix}/lib"
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "a plain C++17 consumer did not build against the shared engine:\n${err}")
  endif()
  execute_process(COMMAND "${WORK_DIR}/plain_consumer" "${DATA_DIR}/sample_market.json"
                          "${DATA_DIR}/sample_portfolio.csv" OUTPUT_VARIABLE out RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "ABC-C100-1Y ok")
    message(FATAL_ERROR "the plain consumer did not price the sample portfolio")
  endif()
endif()

execute_process(COMMAND "${CMAKE_COMMAND}" -S "${CONSUMER_DIR}" -B "${WORK_DIR}/build"
                        "-DCMAKE_PREFIX_PATH=${prefix}" -DCMAKE_BUILD_TYPE=Release RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring the consumer failed")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" --build "${WORK_DIR}/build" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building the consumer failed")
endif()
execute_process(COMMAND "${WORK_DIR}/build/consumer" "${DATA_DIR}/sample_market.json" "${DATA_DIR}/sample_portfolio.csv"
                OUTPUT_VARIABLE out RESULT_VARIABLE rc)
message("${out}")
if(NOT rc EQUAL 0 OR NOT out MATCHES "ABC-C100-1Y ok")
  message(FATAL_ERROR "the consumer did not price the sample portfolio")
endif()
