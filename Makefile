# Two commands for a new user: `make run` and `make test`. Both install what is missing first.
BUILD      ?= build
CUDA_HOME  ?= /usr/local/cuda
BUILD_TYPE ?= Release
JOBS       ?= $(shell nproc)
CMAKE_ARGS ?=
# ON in CI (.ci/run): compiler warnings are errors there, never in a user's build.
WERROR     ?= OFF
DEB_PACKAGES := cmake g++ make catch2 nlohmann-json3-dev libboost-program-options-dev libeigen3-dev libssl-dev libstb-dev chromium-headless-shell \
                libopenmpi-dev openmpi-bin pybind11-dev python3-dev python3-pandas python3-pytest

.PHONY: all deps configure build run test device-build device-bundle sanitize-host sanitize-thread fuzz clean

all: build

# Installs the Debian packages that are missing (as root), or prints the line to run.
deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing:$$missing"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing) || exit 1; \
	  else \
	    echo "missing packages; run as root: apt-get install -y$$missing"; exit 1; \
	  fi; \
	fi
	@command -v nvcc >/dev/null 2>&1 || test -x /usr/local/cuda/bin/nvcc || \
	  { echo "the CUDA toolkit (nvcc) is required: see https://developer.nvidia.com/cuda-downloads"; exit 1; }

$(BUILD)/CMakeCache.txt:
	@$(MAKE) --no-print-directory deps
	PATH="$$PATH:/usr/local/cuda/bin" cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
	  -DMCPRICE_WARNINGS_AS_ERRORS=$(WERROR) $(CMAKE_ARGS)

configure: $(BUILD)/CMakeCache.txt

build: deps configure
	cmake --build $(BUILD) -j $(JOBS)

run: build
	$(BUILD)/apps/price-batch data/sample_portfolio.csv --market data/sample_market.json --paths 1e6; \
	  rc=$$?; [ $$rc -eq 0 ] || [ $$rc -eq 2 ] || exit $$rc

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# Binaries that run on the GPU machine's image: static C++ runtime and Boost. The peers of
# ../shared/peers are built beside them, so one carried folder holds the whole benchmark run.
# DEVICE_MPI=ON keeps MPI in price-batch (libmpi.so.40 stays shared: the GPU machine's image
# has Open MPI 4.1), for mpirun runs there (docs/scale-out.md).
PEERS ?= ../shared/peers
DEVICE_MPI ?= OFF
device-build:
	@$(MAKE) --no-print-directory BUILD=build-device \
	  CMAKE_ARGS="-DMCPRICE_PORTABLE_BINARIES=ON -DMCPRICE_PORTABLE_WITH_MPI=$(DEVICE_MPI)" build
	@if [ -f $(PEERS)/roofline.cu ]; then mkdir -p build-device/peers && \
	  PATH="$$PATH:/usr/local/cuda/bin" nvcc -std=c++17 -O3 -arch=sm_90 -o build-device/peers/roofline $(PEERS)/roofline.cu && \
	  cp $(PEERS)/torch_peers.py build-device/peers/; fi

# What a device run needs, and nothing else, as one gzipped tarball (the device tool carries at
# most 64 MiB). On the GPU machine: tar xzf .devcarry/bundle.tgz -C /tmp, then run
# apps/bench/device_run.sh /tmp/bundle /tmp/bundle/peers.
# The carried working tree is limited to 64 MiB and every binary embeds all kernels (about 12
# MiB compressed each): BUNDLE_BINARIES picks what one device call needs.
BUNDLE_BINARIES ?= tests/mcprice_gpu_tests apps/price-batch apps/mcprice-bench apps/mcprice-throughput \
                   apps/mcprice-greeks-bench
device-bundle: device-build
	rm -rf .devcarry build-device/bundle && mkdir -p .devcarry build-device/bundle/tests build-device/bundle/apps
	for b in $(BUNDLE_BINARIES); do cp build-device/$$b build-device/bundle/$$b; done
	if [ -d build-device/peers ]; then cp -r build-device/peers build-device/bundle/; fi
	tar czf .devcarry/bundle.tgz -C build-device bundle
	@ls -la .devcarry/bundle.tgz

# The host suite under AddressSanitizer + UndefinedBehaviorSanitizer, and the CPU backend's
# concurrency under ThreadSanitizer: one command each (docs/reliability.md). Each builds only the
# host suite, and links the kernel objects of the ordinary build ($(BUILD)) rather than compiling
# them again: nvcc instruments neither, and they are most of a build's time.
# SANITIZE_TESTS picks the cases: all but the [heavy] accuracy runs, which spend their time in
# per-path maths that lighter cases also run (docs/reliability.md says which).
SANITIZE_TESTS ?= ~[heavy]
SANITIZE_CMAKE = -DMCPRICE_KERNEL_OBJECTS_FROM=$(abspath $(BUILD)) -DMCPRICE_BUILD_APPS=ON -DMCPRICE_BUILD_PYTHON=OFF
sanitize-host: build
	@$(MAKE) --no-print-directory BUILD=build-asan BUILD_TYPE=RelWithDebInfo \
	  CMAKE_ARGS="-DMCPRICE_SANITIZE=address,undefined $(SANITIZE_CMAKE)" configure
	cmake --build build-asan -j $(JOBS) --target mcprice_host_tests
	cd build-asan && UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1 \
	  ./tests/mcprice_host_tests $(if $(SANITIZE_TESTS),"$(SANITIZE_TESTS)")

sanitize-thread: build
	@$(MAKE) --no-print-directory BUILD=build-tsan BUILD_TYPE=RelWithDebInfo \
	  CMAKE_ARGS="-DMCPRICE_SANITIZE=thread $(SANITIZE_CMAKE)" configure
	cmake --build build-tsan -j $(JOBS) --target mcprice_host_tests
	cd build-tsan && TSAN_OPTIONS=halt_on_error=1 ./tests/mcprice_host_tests "[concurrency]"

# libFuzzer targets for the portfolio, market and manifest readers and the command line under
# ASan + UBSan (clang), seeded from data/, the bad-input corpus and tests/fuzz/; each runs
# FUZZ_SECONDS (docs/reliability.md). Findings are written to build-fuzz/<target>/ as crash-*.
FUZZ_SECONDS ?= 60
FUZZ_CXX ?= $(shell command -v clang++-14 || command -v clang++)
FUZZ_SOURCES := engine/src/io/portfolio_reader.cpp engine/src/io/csv_reader.cpp engine/src/io/text_values.cpp \
  engine/src/io/input_error.cpp engine/src/io/enum_names.cpp engine/src/io/file_text.cpp engine/src/io/json_positions.cpp \
  engine/src/io/market_reader.cpp engine/src/market/market.cpp engine/src/market/term_structure.cpp \
  engine/src/market/local_vol_surface.cpp engine/src/market/surface_arbitrage.cpp engine/src/market/black_scholes.cpp \
  engine/src/market/market_surfaces.cpp
# The run-manifest reader (`--rerun`) also needs the manifest's own sources, the device query
# (CUDA runtime, no device needed) and the configured build's version header.
FUZZ_MANIFEST_SOURCES := apps/price_batch/run_manifest.cpp apps/price_batch/sha256.cpp memory/src/device_info.cpp \
  memory/src/cuda_error.cpp
# The command line (the load test's options above all) needs price-batch's parsing sources.
FUZZ_CLI_SOURCES := apps/price_batch/command_line.cpp apps/price_batch/quantity.cpp apps/price_batch/load_stream.cpp
FUZZ_FLAGS := -std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -Iengine/include -Iengine/src -Ikernels/include -Imemory/include -I/usr/include/eigen3
fuzz: configure
	@test -n "$(FUZZ_CXX)" || { echo "make fuzz needs clang++ (libFuzzer)"; exit 1; }
	mkdir -p build-fuzz/portfolio/corpus build-fuzz/market/corpus build-fuzz/manifest/corpus build-fuzz/command_line/corpus
	cp data/*.csv data/golden/portfolio.csv tests/apps/bad_inputs/*.csv tests/apps/cases/*.csv build-fuzz/portfolio/corpus/
	cp data/*.json data/golden/market.json tests/apps/bad_inputs/*.json build-fuzz/market/corpus/
	$(FUZZ_CXX) $(FUZZ_FLAGS) tests/fuzz/portfolio_fuzzer.cpp $(FUZZ_SOURCES) -o build-fuzz/portfolio_fuzzer
	$(FUZZ_CXX) $(FUZZ_FLAGS) tests/fuzz/market_fuzzer.cpp $(FUZZ_SOURCES) -o build-fuzz/market_fuzzer
	$(FUZZ_CXX) $(FUZZ_FLAGS) -Iapps/price_batch -I$(BUILD)/generated/include -isystem $(CUDA_HOME)/include \
	  tests/fuzz/manifest_fuzzer.cpp $(FUZZ_MANIFEST_SOURCES) $(FUZZ_SOURCES) -L$(CUDA_HOME)/lib64 -lcudart -lcrypto \
	  -o build-fuzz/manifest_fuzzer
	cp tests/fuzz/manifest_seed.json build-fuzz/manifest/corpus/
	$(FUZZ_CXX) $(FUZZ_FLAGS) -Iapps/price_batch -I$(BUILD)/generated/include -DMCPRICE_SOURCE_DATA_DIR='"data"' \
	  -DMCPRICE_INSTALL_DATA_DIR='"/usr/share/mcprice"' tests/fuzz/command_line_fuzzer.cpp $(FUZZ_CLI_SOURCES) \
	  engine/src/io/input_error.cpp -lboost_program_options -o build-fuzz/command_line_fuzzer
	cp tests/fuzz/command_line_seeds/* tests/fuzz/command_line_crash_*.txt build-fuzz/command_line/corpus/
	cd build-fuzz/portfolio && ../portfolio_fuzzer -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 corpus
	cd build-fuzz/market && ../market_fuzzer -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 corpus
	cd build-fuzz/manifest && LD_LIBRARY_PATH=$(CUDA_HOME)/lib64 ../manifest_fuzzer -max_total_time=$(FUZZ_SECONDS) \
	  -print_final_stats=1 corpus
	cd build-fuzz/command_line && ASAN_OPTIONS=max_malloc_fill_size=0:malloc_context_size=0 ../command_line_fuzzer -max_total_time=$(FUZZ_SECONDS) \
	  -print_final_stats=1 corpus

clean:
	rm -rf $(BUILD) build-device build-asan build-tsan build-fuzz
