# A thin layer over CMake: `make run` and `make test` are all a fresh
# Debian machine with make needs. Before configuring, scripts/deps.sh
# installs what the build requires (gcc, g++, make, cmake) where it is
# missing, as root or through sudo, or stops with one line naming the
# command that would (exit code 2); optional packages are only named.
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
PREFIX ?= /usr/local
# OPTIONAL=1: install the optional Debian packages too (OpenBLAS, GCC's
# nvptx offload compiler, pkg-config, python3), with `make deps` or any
# target that builds.
OPTIONAL ?=
DEPS_FLAGS = $(if $(filter-out 0 no,$(OPTIONAL)),--optional)

# make's "Entering directory" lines are noise around what the user came
# for (CMake's build runs make again inside build/).
MAKEFLAGS += --no-print-directory

.PHONY: all deps configure build run test performance install uninstall deb clean

all: build

deps:
	@sh scripts/deps.sh $(DEPS_FLAGS)

# CMake runs again on every build, a second when nothing changed: it then
# sees optional packages installed since the last run (OpenBLAS, nvcc,
# GCC's nvptx offload compiler).
# CMAKE_FLAGS that differ from the last run's ($(BUILD)/.cmake-flags) start
# a fresh cache, so that a flag left out is left out, not kept from before.
configure: deps
	@mkdir -p $(BUILD)
	@if [ -f $(BUILD)/.cmake-flags ] && \
	    [ "$$(cat $(BUILD)/.cmake-flags)" != '$(CMAKE_FLAGS)' ]; then \
	  echo "CMAKE_FLAGS changed: a fresh cache in $(BUILD)"; \
	  rm -f $(BUILD)/CMakeCache.txt; \
	fi
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)
	@printf '%s\n' '$(CMAKE_FLAGS)' > $(BUILD)/.cmake-flags

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# The default suite on every backend this machine has: the command and the
# libraries it loads are built, not the tests.
run: configure
	cmake --build $(BUILD) -j $(JOBS) --target kladder-command
	./$(BUILD)/kladder run

# The CTest suite but the tests labelled big (each workload's problems
# past 2^31 elements: minutes and gigabytes each on a small machine; the
# GPU entry point, scripts/gpu.sh test, runs them); `make test BIG=1`
# runs those too.
test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) $(if $(BIG),,-LE big)

# docs/performance.md and README's summary, made again from results/.
performance:
	cmake --build $(BUILD) -j $(JOBS) --target kladder-cli
	scripts/performance.sh $(BUILD)/kladder

# make install PREFIX=/opt/kladder (default /usr/local); DESTDIR works too.
install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

# Removes what the last install from $(BUILD) wrote (its manifest).
uninstall:
	@if [ ! -f $(BUILD)/install_manifest.txt ]; then \
	  echo "nothing to uninstall: no $(BUILD)/install_manifest.txt"; exit 1; \
	fi
	@while IFS= read -r f || [ -n "$$f" ]; do \
	  if [ -e "$$f" ] || [ -L "$$f" ]; then echo "rm $$f"; rm -f "$$f"; fi; \
	done < $(BUILD)/install_manifest.txt
	@sed -n 's|/kladderConfig\.cmake$$||p' $(BUILD)/install_manifest.txt | \
	  while IFS= read -r d || [ -n "$$d" ]; do rmdir "$$d" 2>/dev/null || true; done
	@rm -f $(BUILD)/install_manifest.txt

# The Debian packages of the build, by CPack (cmake/packaging.cmake):
# $(BUILD)/kladder_VERSION_ARCH.deb, and kladder-cuda_VERSION_ARCH.deb where
# the GPU module is built; `apt-get install ./$(BUILD)/kladder_*.deb` as root.
deb: build
	cd $(BUILD) && cpack -G DEB

clean:
	rm -rf $(BUILD)
