# l2sim build.  `make` builds build/l2sim; `make test` runs the unit and
# golden tests; `make test SANITIZER=address,undefined` the same under
# sanitizers (in build-san/); `make calibrate` compares configs/h100.cfg and
# configs/h200.cfg with the GPU measurements in calibration/; `make bench`
# measures speed and memory.

CC       ?= cc
DEPS     := uthash-dev check pkg-config zlib1g-dev libzstd-dev liblzma-dev xz-utils parallel python3
CSTD     := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
# Link-time optimisation needs the compiler's own archiver: gcc-ar for GCC,
# llvm-ar for clang (without llvm-ar, clang builds without it).
CC_CLANG := $(shell $(CC) --version 2>/dev/null | grep -q clang && echo 1)
LLVM_AR  := $(if $(CC_CLANG),$(shell command -v llvm-ar 2>/dev/null))
LTO      := $(if $(CC_CLANG),$(if $(LLVM_AR),-flto),-flto=auto)
OPT      ?= -O3 -g $(LTO)
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
AR       := $(if $(CC_CLANG),$(or $(LLVM_AR),ar),gcc-ar)
# zlib (gzip traces, checksums), libzstd and liblzma (xz input); deferred (=) so that pkg-config
# runs after tools/deps.sh has installed it
ZLIBS     = $(or $(shell pkg-config --libs zlib libzstd liblzma 2>/dev/null),-lz -lzstd -llzma)
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

# a sanitizer build runs the suite about 4 x slower (160.6 s against 38.5 s on a
# 2-core machine): Check's timeouts x 4
unit: $(BUILD)/unit $(BUILD)/l2sim $(BUILD)/scengen
	CK_TIMEOUT_MULTIPLIER=$${CK_TIMEOUT_MULTIPLIER:-$(if $(SANITIZER),4,1)} L2SIM=$(BUILD)/l2sim $(BUILD)/unit

golden: $(BUILD)/l2sim
	tests/golden.sh $(BUILD)/l2sim

golden-update: $(BUILD)/l2sim
	tests/golden.sh --update $(BUILD)/l2sim

# golden first, unit last: the run ends with Check's summary line
test: all
	@$(MAKE) --no-print-directory golden
	@$(MAKE) --no-print-directory unit

# every table, each with its GPU's configuration; the output is kept in
# calibration/report.txt
CAL_H100 := calibration/h100/measurements.csv calibration/h100/extra.csv calibration/h100/fidelity.csv \
            calibration/h100/placement.csv
CAL_H200 := calibration/h200/rows.csv calibration/h200/placement.csv
CAL_REAL := h100/hotcold h100/mlp h100/reuse h200/reuse h200/gather h200/partial h200/chain h200/adam h200/search \
            h200/stride h200/spmm h200/kvcache
calibrate: all
	{ tools/calibrate/calibrate.sh $(BUILD) configs/h100.cfg $(CAL_H100) && echo && \
	  tools/calibrate/calibrate.sh $(BUILD) configs/h200.cfg $(CAL_H200) && echo && \
	  echo "the H200 idle between kernels (pause steps, which a trace does not hold):" && \
	  tools/calibrate/calibrate.sh $(BUILD) configs/h200.cfg calibration/h200/idle.csv && echo && \
	  echo "two streams, concurrent replay:" && \
	  tools/calibrate/calibrate.sh $(BUILD) configs/h100.cfg calibration/h100/concurrent.csv && echo && \
	  echo "two streams, serialized replay (--serialize):" && \
	  L2SIM_OPTS=--serialize tools/calibrate/calibrate.sh $(BUILD) configs/h100.cfg calibration/h100/concurrent.csv && \
	  for r in $(CAL_REAL); do g=$${r%/*}; w=$${r#*/}; \
	    echo && echo "real program $$w, per kernel (calibration/$$g/real, configs/$$g.cfg):" && \
	    $(BUILD)/l2sim run --config configs/$$g.cfg --ncu calibration/$$g/real/ncu-$$w.csv \
	      $$(ls calibration/$$g/real/$$w.l2b.*) | sed -n '/^measured by Nsight Compute/,$$p' || exit 1; done; \
	} > calibration/report.tmp
	mv calibration/report.tmp calibration/report.txt
	cat calibration/report.txt

# make install PREFIX=DIR (default /usr/local; DESTDIR for staging): the
# programs, the configurations, the sample traces, the man page and the README
PREFIX ?= /usr/local
.PHONY: install
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/l2sim/configs \
	    $(DESTDIR)$(PREFIX)/share/l2sim/traces $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/doc/l2sim
	install -m 755 $(BUILD)/l2sim $(BUILD)/tracegen $(BUILD)/scengen $(DESTDIR)$(PREFIX)/bin
	install -m 644 configs/*.cfg $(DESTDIR)$(PREFIX)/share/l2sim/configs
	install -m 644 traces/* $(DESTDIR)$(PREFIX)/share/l2sim/traces
	install -m 644 docs/l2sim.1 $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 644 README.md $(DESTDIR)$(PREFIX)/share/doc/l2sim

# libFuzzer harnesses (tests/fuzz/): each runs FUZZ_SECONDS over its seed
# corpus (tests/fuzz/corpus/NAME; new inputs go to $(BUILD)/fuzz/NAME, a
# crash to $(BUILD)/fuzz/NAME-crash-*, and fails the target)
FUZZ_SECONDS ?= 10
FUZZ_CC      ?= clang
FUZZ_FLAGS   := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_NAMES   := text binary config policy accelsim ncu
fuzz-src = tests/fuzz/fuzz_$(if $(filter text binary,$(1)),trace,$(1)).c
.PHONY: fuzz
$(BUILD)/fuzz/fuzz-%: tests/fuzz/*.c tests/fuzz/fuzz.h $(LIB_SRC) sim/*.h $(STAMP)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CSTD) $(WARN) $(FUZZ_FLAGS) -pthread -Isim -o $@ $(call fuzz-src,$*) $(LIB_SRC) $(ZLIBS) -lm
fuzz: $(FUZZ_NAMES:%=$(BUILD)/fuzz/fuzz-%)
	@for n in $(FUZZ_NAMES); do \
	    mkdir -p $(BUILD)/fuzz/$$n && \
	    echo "fuzz: $$n for $(FUZZ_SECONDS) s" && \
	    $(BUILD)/fuzz/fuzz-$$n -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=10 \
	        -artifact_prefix=$(BUILD)/fuzz/$$n-crash- -print_final_stats=1 \
	        $(BUILD)/fuzz/$$n tests/fuzz/corpus/$$n > $(BUILD)/fuzz/$$n.log 2>&1; st=$$?; \
	    grep -E '^stat::number_of_executed_units' $(BUILD)/fuzz/$$n.log; \
	    if [ $$st -ne 0 ]; then tail -n 40 $(BUILD)/fuzz/$$n.log; exit 1; fi; \
	done

# the GPU probe, where a CUDA toolkit is installed (tools/hwprobe/README.md)
NVCC ?= $(shell command -v nvcc 2>/dev/null || ls /usr/local/cuda/bin/nvcc 2>/dev/null)
hwprobe:
	@if [ -n "$(NVCC)" ]; then mkdir -p $(BUILD) && \
	    $(NVCC) -O3 -std=c++17 -arch=$${HWPROBE_ARCH:-sm_90} -o $(BUILD)/hwprobe tools/hwprobe/hwprobe.cu && \
	    $(NVCC) -O3 -std=c++17 -arch=$${HWPROBE_ARCH:-sm_90} -o $(BUILD)/smpart tools/hwprobe/smpart.cu && \
	    echo "built $(BUILD)/hwprobe and $(BUILD)/smpart"; \
	else echo "hwprobe: no nvcc found; nothing built"; fi

# ---- l2trace: the capture tool (tools/l2trace/README.md) -------------------
# build/l2trace (the launcher) is built everywhere; build/libl2trace.so (the
# Compute Sanitizer tool it injects) and build/l2trace-patch.fatbin (its
# device patches) only where nvcc and the Sanitizer API headers exist.  The
# library compiles the sim sources it needs itself, position-independent and
# without ARCH (it runs on whatever host the GPU is in).  The unit tests
# compile capture.c, so `make test` covers it without a GPU.
SANITIZER_DIR ?= $(firstword $(wildcard $(dir $(realpath $(NVCC)))../compute-sanitizer) /usr/local/cuda/compute-sanitizer)
L2T_ARCHS     ?= 80 86 89 90
L2T_C         := tools/l2trace/capture.c tools/l2trace/tracer.c
L2T_PIC_OBJ   := $(patsubst %.c,$(BUILD)/l2trace-pic/%.o,$(LIB_SRC) $(L2T_C))
L2T_HAVE_SAN   = $(and $(NVCC),$(wildcard $(SANITIZER_DIR)/include/sanitizer.h))
.PHONY: l2trace test-gpu

$(BUILD)/unit: TEST_SRC += tools/l2trace/capture.c
$(BUILD)/unit: tools/l2trace/capture.c tools/l2trace/capture.h tools/l2trace/tracer.h

l2trace: $(BUILD)/l2trace
	@if [ -n "$(L2T_HAVE_SAN)" ]; then \
	    $(MAKE) --no-print-directory $(BUILD)/libl2trace.so $(BUILD)/l2trace-patch.fatbin; \
	else echo "l2trace: no nvcc or no $(SANITIZER_DIR)/include/sanitizer.h: built $(BUILD)/l2trace only, which cannot capture here"; fi

$(BUILD)/l2trace: tools/l2trace/l2trace.c tools/l2trace/capture.c tools/l2trace/*.h $(BUILD)/libl2sim.a
	$(CC) $(CFLAGS) -Isim -o $@ tools/l2trace/l2trace.c tools/l2trace/capture.c $(BUILD)/libl2sim.a $(LDSAN) $(LDLIBS)

$(BUILD)/l2trace-pic/%.o: %.c sim/*.h tools/l2trace/*.h $(STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -O2 -g -fPIC -pthread -Isim -c -o $@ $<

$(BUILD)/libl2trace.so: tools/l2trace/inject.cu tools/l2trace/tracer.h $(L2T_PIC_OBJ)
	$(NVCC) -std=c++17 -O2 -g -Xcompiler -fPIC,-Wall,-Wextra,-Werror -shared -I$(SANITIZER_DIR)/include \
	    -Itools/l2trace -o $@ tools/l2trace/inject.cu $(L2T_PIC_OBJ) \
	    -L$(SANITIZER_DIR) -lsanitizer-public -Xlinker -rpath,$(SANITIZER_DIR) $(ZLIBS) -lm -lpthread

$(BUILD)/l2trace-patch.fatbin: tools/l2trace/patch.cu tools/l2trace/tracer.h
	$(NVCC) --fatbin --compile-as-tools-patch -O3 -I$(SANITIZER_DIR)/include -Itools/l2trace \
	    $(foreach a,$(L2T_ARCHS),-gencode arch=compute_$(a),code=sm_$(a)) \
	    -gencode arch=compute_$(lastword $(L2T_ARCHS)),code=compute_$(lastword $(L2T_ARCHS)) -o $@ $<

# the captures checked record by record on a GPU; exit 77 (skipped) without one
test-gpu: all l2trace
	tests/cuda/run.sh $(BUILD)
# ---- end of l2trace ---------------------------------------------------------

bench: all
	tools/bench/bench.sh $(BUILD)

clean:
	rm -rf build build-san
