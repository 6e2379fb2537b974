# l2sim build.  `make` builds build/l2sim; `make test` runs the unit and
# golden tests; `make test SANITIZER=address,undefined` the same under
# sanitizers (in build-san/); `make calibrate` compares configs/h100.cfg with
# the H100 measurements; `make bench` measures speed and memory.

CC       ?= cc
DEPS     := uthash-dev check pkg-config zlib1g-dev libzstd-dev
CSTD     := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
OPT      ?= -O3 -g -flto=auto
# Code for the building host's instruction set (popcnt, BMI2, AVX2: 11% fewer
# instructions by tools/bench/count.sh, about 7% less time); `make ARCH=` builds
# for any CPU of the architecture.  On x86-64 AVX-512 is left out: it gains
# nothing here and valgrind (tools/bench/count.sh) cannot run it.
ARCH     ?= -march=native $(if $(filter x86_64,$(shell uname -m)),-mno-avx512f)
ifdef SANITIZER
BUILD    ?= build-san
OPT      := -O1 -g -fno-omit-frame-pointer -fsanitize=$(SANITIZER) -fno-sanitize-recover=all
LDSAN    := -fsanitize=$(SANITIZER)
else
BUILD    ?= build
endif
CFLAGS   += $(CSTD) $(WARN) $(OPT) $(ARCH) -pthread
AR       := gcc-ar # archives of link-time-optimised objects
# zlib (gzip traces, checksums) and libzstd; deferred (=) so that pkg-config
# runs after tools/deps.sh has installed it
ZLIBS     = $(or $(shell pkg-config --libs zlib libzstd 2>/dev/null),-lz -lzstd)
LDLIBS   += $(ZLIBS) -lm -pthread

LIB_SRC  := $(filter-out sim/main.c,$(wildcard sim/*.c))
LIB_OBJ  := $(LIB_SRC:sim/%.c=$(BUILD)/obj/%.o)
TEST_SRC := $(wildcard tests/test_*.c)
STAMP    := $(BUILD)/.deps
FLAGS    := $(BUILD)/.flags

.PHONY: FORCE all deps test unit golden golden-update calibrate bench hwprobe clean
all: $(BUILD)/l2sim $(BUILD)/scengen $(BUILD)/tracegen

$(STAMP):
	@mkdir -p $(BUILD)
	@tools/deps.sh $(DEPS)
	@touch $@

deps: $(STAMP)

# The compiler and its flags, rewritten only when they change (another OPT,
# ARCH or SANITIZER), so that a change rebuilds everything.
$(FLAGS): FORCE
	@mkdir -p $(BUILD)
	@echo '$(CC) $(CFLAGS)' | cmp -s - $@ || echo '$(CC) $(CFLAGS)' >$@
FORCE:

$(BUILD)/obj/%.o: sim/%.c sim/*.h $(STAMP) $(FLAGS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/libl2sim.a: $(LIB_OBJ)
	$(AR) rcs $@ $^

$(BUILD)/l2sim: $(BUILD)/obj/main.o $(BUILD)/libl2sim.a
	$(CC) $(CFLAGS) $(LDSAN) -o $@ $^ $(LDLIBS)

$(BUILD)/scengen: tools/scengen/scengen.c $(BUILD)/libl2sim.a
	$(CC) $(CFLAGS) -Isim -o $@ $< $(BUILD)/libl2sim.a $(LDSAN) $(LDLIBS)

$(BUILD)/tracegen: tools/tracegen/tracegen.c sim/policy.h sim/common.h $(STAMP) $(FLAGS)
	$(CC) $(CFLAGS) -Isim -o $@ $< $(LDSAN) $(LDLIBS)

CHECK_CFLAGS = $(shell pkg-config --cflags check)
CHECK_LIBS   = $(shell pkg-config --libs check)

$(BUILD)/unit: $(TEST_SRC) tests/*.h $(BUILD)/libl2sim.a
	$(CC) $(CFLAGS) -Wno-missing-prototypes $(CHECK_CFLAGS) -Isim -o $@ $(TEST_SRC) $(BUILD)/libl2sim.a \
	    $(LDSAN) $(CHECK_LIBS) $(LDLIBS)

unit: $(BUILD)/unit $(BUILD)/l2sim $(BUILD)/scengen
	L2SIM=$(BUILD)/l2sim $(BUILD)/unit

golden: $(BUILD)/l2sim
	tests/golden.sh $(BUILD)/l2sim

golden-update: $(BUILD)/l2sim
	tests/golden.sh --update $(BUILD)/l2sim

# golden first, unit last: the run ends with Check's summary line
test: all
	@$(MAKE) --no-print-directory golden
	@$(MAKE) --no-print-directory unit

# both tables; the output is kept in tools/calibrate/h100-report.txt
calibrate: all
	tools/calibrate/calibrate.sh $(BUILD) configs/h100.cfg ../shared/calibration/h100/measurements.csv \
	    tools/calibrate/h100-extra.csv > tools/calibrate/h100-report.tmp
	mv tools/calibrate/h100-report.tmp tools/calibrate/h100-report.txt
	cat tools/calibrate/h100-report.txt

# the GPU probe, where a CUDA toolkit is installed (tools/hwprobe/README.md)
NVCC ?= $(shell command -v nvcc 2>/dev/null || ls /usr/local/cuda/bin/nvcc 2>/dev/null)
hwprobe:
	@if [ -n "$(NVCC)" ]; then mkdir -p $(BUILD) && \
	    $(NVCC) -O3 -std=c++17 -arch=$${HWPROBE_ARCH:-sm_90} -o $(BUILD)/hwprobe tools/hwprobe/hwprobe.cu && \
	    echo "built $(BUILD)/hwprobe"; \
	else echo "hwprobe: no nvcc found; nothing built"; fi

bench: all
	tools/bench/bench.sh $(BUILD)

clean:
	rm -rf build build-san
