# perch: plain Make. `make` builds build/perch and everything it loads into
# the VM; `make test` builds and runs every test. See README.md.

CC      ?= gcc
BUILD   := build
WARN    := -Wall -Wextra -Werror
CSTD    := -std=gnu11

# --- Launcher: an ordinary Linux program -----------------------------------
LAUNCHER_CFLAGS := $(CSTD) $(WARN) -O2 -g -D_GNU_SOURCE -MMD -MP
# libslirp for --net user. Debian 12's slirp.pc names glib-2.0 as a
# Requires that libslirp-dev does not pull in, and perch needs nothing of
# glib's headers: without it, pkg-config fails and plain -lslirp is right.
SLIRP_LIBS      := $(shell pkg-config --libs slirp 2>/dev/null || echo -lslirp)
LAUNCHER_LIBS   := -lpthread -lz -llzma -lzstd -llz4 -luring $(SLIRP_LIBS)
# lib/cpuid_table.c is the one piece of lib/ the Launcher shares with the
# Host: the table of CPUID leaves it fills and the Host answers from.
LAUNCHER_SRC    := $(wildcard launcher/*.c launcher/*/*.c) lib/cpuid_table.c
LAUNCHER_OBJ    := $(LAUNCHER_SRC:%.c=$(BUILD)/%.o)
# What the unit tests link: everything but main() and the embedded images.
UNIT_LAUNCHER_SRC := $(filter-out launcher/main.c launcher/boot/images.c,$(LAUNCHER_SRC))

# --- Freestanding code that runs inside the VM -------------------------------
VM_CFLAGS := $(CSTD) $(WARN) -O2 -g -ffreestanding -fno-builtin -nostdlib \
             -fno-stack-protector -fno-asynchronous-unwind-tables \
             -mno-red-zone -mgeneral-regs-only -fcf-protection=none \
             -fno-tree-loop-distribute-patterns -MMD -MP
VM_LDFLAGS := -nostdlib -static -Wl,--build-id=none -Wl,-z,max-page-size=4096 \
              -Wl,-z,noexecstack -Wl,--no-warn-rwx-segments

# Host: position-independent code linked at HOST_IMAGE_VA (slot 257 + 2 GiB).
# host/ is in rooms (host/README.md): host/*/*.c but host/env/ is the Host's
# logic (also built into the unit tests); host/env/ holds what exists only
# inside the VM (entry code, header, environment). lib/ is freestanding code
# the Host and the test guests share.
HOST_CFLAGS := $(VM_CFLAGS) -fpie -fvisibility=hidden -DPERCH_HOST_VM
HOST_C      := $(filter-out host/env/%,$(wildcard host/*/*.c))
HOST_VM_SRC := $(wildcard host/env/*.c host/env/*.S lib/*.c)
HOST_OBJ    := $(HOST_C:%.c=$(BUILD)/vm/%.o) \
               $(patsubst %,$(BUILD)/vm/host-%.o,$(basename $(HOST_VM_SRC)))

# Switcher: ring-0 assembly linked at SW_CODE_VA.
SWITCHER_S   := $(filter-out %.lds.S,$(wildcard switcher/*.S))
SWITCHER_OBJ := $(SWITCHER_S:%.S=$(BUILD)/vm/%.o)

# Test guests: guests/rt is the runtime, every other folder one guest.
GUEST_CFLAGS := $(VM_CFLAGS) -mcmodel=kernel -fno-pie
GUEST_RT_SRC := $(wildcard guests/rt/*.c guests/rt/*.S lib/*.c)
GUEST_RT_OBJ := $(patsubst %,$(BUILD)/vm/%.o,$(basename $(GUEST_RT_SRC)))
GUEST_NAMES  := $(filter-out rt,$(notdir $(wildcard guests/*)))
GUESTS       := $(GUEST_NAMES:%=$(BUILD)/guests/%.elf)

# --- Host-side unit tests ----------------------------------------------------
# Host logic (HOST_C: host/*/*.c but host/env/) is compiled natively too,
# against tests/unit/host_env.c which stands in for host/env/ (guest memory
# access, the Switcher gates).
UNIT_SRC   := $(wildcard tests/unit/test_*.c)
UNIT_BINS  := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/unit/%)
ASAN_BINS  := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/unit-asan/%)
UNIT_HELPERS := $(filter-out $(UNIT_SRC),$(wildcard tests/unit/*.c))
SAN_FLAGS  := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

.PHONY: all run test unit clean tour install uninstall
all: $(BUILD)/perch $(GUESTS)

# The main job: boot the default guest, Debian's cloud kernel, to a shell
# on the console (the first run fetches it with apt; Ctrl-D powers off).
# `run` and `test` first check for (as root install) what they need,
# tools/install-deps.sh, then build in a second make: so even with -j no
# compile starts before the check ends, and the second make's pkg-config
# and clang look-ups see what it installed. (The `@:` recipes keep make's
# "Nothing to be done" line off an up-to-date tree's console.)
.PHONY: run-build
run:
	@tools/install-deps.sh run
	@$(MAKE) --no-print-directory run-build
	$(BUILD)/perch run
run-build: all
	@:

# Installed like a tool: the binary (it carries its Host, Switcher,
# initramfs and perchbench; the guest kernel it fetches into the user's
# cache), perch(1) made from its own --help (tools/manpage.sh), and bash
# completion that reads the installed perch's --help. PREFIX and DESTDIR
# as usual: `make install PREFIX=$HOME/.local`, or DESTDIR=... for a package.
PREFIX  ?= /usr/local
BINDIR  := $(PREFIX)/bin
MAN1DIR := $(PREFIX)/share/man/man1
COMPDIR := $(PREFIX)/share/bash-completion/completions
$(BUILD)/perch.1: $(BUILD)/perch tools/manpage.sh
	tools/manpage.sh $(BUILD)/perch >$@.tmp && mv $@.tmp $@
install:
	@tools/install-deps.sh run
	@$(MAKE) --no-print-directory install-files
.PHONY: install-files
install-files: $(BUILD)/perch $(BUILD)/perch.1
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MAN1DIR) $(DESTDIR)$(COMPDIR)
	install -m 755 $(BUILD)/perch $(DESTDIR)$(BINDIR)/perch
	install -m 644 $(BUILD)/perch.1 $(DESTDIR)$(MAN1DIR)/perch.1
	install -m 644 tools/perch.bash-completion $(DESTDIR)$(COMPDIR)/perch
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/perch $(DESTDIR)$(MAN1DIR)/perch.1 $(DESTDIR)$(COMPDIR)/perch

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(LAUNCHER_CFLAGS) -c $< -o $@

$(BUILD)/launcher/boot/embedded_images.o: launcher/boot/embedded_images.S $(BUILD)/host.bin $(BUILD)/switcher.bin
	@mkdir -p $(dir $@)
	$(CC) -c -DHOST_BIN='"$(BUILD)/host.bin"' -DSWITCHER_BIN='"$(BUILD)/switcher.bin"' $< -o $@

$(BUILD)/launcher/boot/embedded_init.o: launcher/boot/embedded_init.S $(BUILD)/initramfs/init
	@mkdir -p $(dir $@)
	$(CC) -c -DINIT_BIN='"$(BUILD)/initramfs/init"' $< -o $@

# perchbench rides along too (the guest's /bin/perchbench, and what
# `perch bench` runs natively), so `all` builds it through this rule; and
# the library `perch bench --uml` preloads into UML.
$(BUILD)/launcher/boot/embedded_bench.o: launcher/boot/embedded_bench.S $(BUILD)/bench/perchbench \
                                         $(BUILD)/bench/uml_xstate.so
	@mkdir -p $(dir $@)
	$(CC) -c -DBENCH_BIN='"$(BUILD)/bench/perchbench"' \
	      -DUML_PRELOAD='"$(BUILD)/bench/uml_xstate.so"' $< -o $@

$(BUILD)/bench/uml_xstate.so: launcher/bench/preload/uml_xstate.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -Wall -Wextra -Werror -O2 -shared -fPIC -o $@ $< -ldl

$(BUILD)/perch: $(LAUNCHER_OBJ) $(BUILD)/launcher/boot/embedded_images.o $(BUILD)/launcher/boot/embedded_init.o \
                $(BUILD)/launcher/boot/embedded_bench.o
	$(CC) -o $@ $^ $(LAUNCHER_LIBS)

# perch's /init: a static user program for the guest (initramfs/*.c),
# embedded into build/perch; stripped, as it is copied into every guest.
$(BUILD)/initramfs/init: $(wildcard initramfs/*.c) $(wildcard initramfs/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -O2 -static -s -o $@ $(filter %.c,$^)

$(BUILD)/vm/host/%.o: host/%.c
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -c $< -o $@
$(BUILD)/vm/host-%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -c $< -o $@
$(BUILD)/vm/host-%.o: %.S
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -c $< -o $@
$(BUILD)/host.elf: $(HOST_OBJ) $(BUILD)/host.lds
	$(CC) $(HOST_CFLAGS) $(VM_LDFLAGS) -no-pie -Wl,-T,$(BUILD)/host.lds -o $@ $(HOST_OBJ)

$(BUILD)/vm/switcher/%.o: switcher/%.S
	@mkdir -p $(dir $@)
	$(CC) $(VM_CFLAGS) -c $< -o $@
$(BUILD)/switcher.elf: $(SWITCHER_OBJ) $(BUILD)/switcher.lds
	$(CC) $(VM_CFLAGS) $(VM_LDFLAGS) -no-pie -Wl,-T,$(BUILD)/switcher.lds -o $@ $(SWITCHER_OBJ)

# Linker scripts take perch's layout from abi/layout.h through cpp.
$(BUILD)/%.lds: */%.lds.S abi/layout.h
	@mkdir -p $(dir $@)
	$(CC) -E -P -x assembler-with-cpp $< -o $@

$(BUILD)/%.bin: $(BUILD)/%.elf
	objcopy -O binary $< $@

$(BUILD)/vm/guests/%.o: guests/%.c
	@mkdir -p $(dir $@)
	$(CC) $(GUEST_CFLAGS) -Iguests/rt -c $< -o $@
$(BUILD)/vm/lib/%.o: lib/%.c
	@mkdir -p $(dir $@)
	$(CC) $(GUEST_CFLAGS) -c $< -o $@
$(BUILD)/vm/guests/%.o: guests/%.S
	@mkdir -p $(dir $@)
	$(CC) $(GUEST_CFLAGS) -Iguests/rt -c $< -o $@
define GUEST_RULE
$(BUILD)/guests/$(1).elf: $(GUEST_RT_OBJ) $(patsubst %,$(BUILD)/vm/%.o,$(basename $(wildcard guests/$(1)/*.c guests/$(1)/*.S))) guests/rt/guest.lds
	@mkdir -p $$(dir $$@)
	$$(CC) $$(GUEST_CFLAGS) $$(VM_LDFLAGS) -no-pie -Wl,-T,guests/rt/guest.lds -o $$@ $$(filter %.o,$$^)
endef
$(foreach g,$(GUEST_NAMES),$(eval $(call GUEST_RULE,$(g))))

# Unit tests: one binary per tests/unit/test_*.c, plain and sanitized. The
# code under test is compiled once per variant into an archive; each test
# links its own file, the helpers (stand-ins, some weak) and the archive.
UNIT_LIB_SRC := $(UNIT_LAUNCHER_SRC) $(HOST_C) lib/fmt.c
UNIT_CFLAGS := $(LAUNCHER_CFLAGS) -O1 -Itests/unit

$(BUILD)/unit/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(UNIT_CFLAGS) -c $< -o $@
$(BUILD)/unit-asan/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(UNIT_CFLAGS) $(SAN_FLAGS) -c $< -o $@
# host/env/flush_tlb.S is the one file of env/ a unit test runs natively
# (tests/unit/test_host_flush_tlb.c says why); only that test links it.
$(BUILD)/unit/obj/%.o: %.S
	@mkdir -p $(dir $@)
	$(CC) $(UNIT_CFLAGS) -Wa,--noexecstack -c $< -o $@
$(BUILD)/unit-asan/obj/%.o: %.S
	@mkdir -p $(dir $@)
	$(CC) $(UNIT_CFLAGS) -Wa,--noexecstack -c $< -o $@
$(BUILD)/unit/test_host_flush_tlb: $(BUILD)/unit/obj/host/env/flush_tlb.o
$(BUILD)/unit-asan/test_host_flush_tlb: $(BUILD)/unit-asan/obj/host/env/flush_tlb.o
$(BUILD)/unit/libperch.a: $(UNIT_LIB_SRC:%.c=$(BUILD)/unit/obj/%.o)
	rm -f $@ && ar rcs $@ $^
$(BUILD)/unit-asan/libperch.a: $(UNIT_LIB_SRC:%.c=$(BUILD)/unit-asan/obj/%.o)
	rm -f $@ && ar rcs $@ $^

$(UNIT_BINS): $(BUILD)/unit/%: $(BUILD)/unit/obj/tests/unit/%.o \
		$(UNIT_HELPERS:%.c=$(BUILD)/unit/obj/%.o) $(BUILD)/unit/libperch.a
	$(CC) -o $@ $^ $(LAUNCHER_LIBS)
$(ASAN_BINS): $(BUILD)/unit-asan/%: $(BUILD)/unit-asan/obj/tests/unit/%.o \
		$(UNIT_HELPERS:%.c=$(BUILD)/unit-asan/obj/%.o) $(BUILD)/unit-asan/libperch.a
	$(CC) $(SAN_FLAGS) -o $@ $^ $(LAUNCHER_LIBS)

unit: $(UNIT_BINS) $(ASAN_BINS)

# Fuzzing: one libFuzzer harness per parser of untrusted bytes
# (tests/fuzz/fuzz_*.c), linked as the unit tests are (the same archive of
# perch's code and the same helpers, host_env.c's stand-in memory included),
# built with clang's coverage instrumentation and ASan/UBSan. `make fuzz`
# runs each for FUZZ_SECONDS (or FUZZ_RUNS executions, if set) on one core
# from its seed corpus (tests/fuzz/corpus/NAME/); `make test` runs each for
# seconds when clang is there (tests/fuzz/smoke.sh).
FUZZ_CC      := clang
FUZZ_SECONDS ?= 60
FUZZ_RUNS    ?=
FUZZ_SRC     := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS    := $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/fuzz/%)
FUZZ_HELPERS := $(filter-out $(FUZZ_SRC),$(wildcard tests/fuzz/*.c))
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# clang names one GNU C extension gcc takes silently: the header-then-
# entries struct of KVM_SET_MSRS (launcher/vm/kvm.c), KVM's own idiom.
FUZZ_CFLAGS  := $(UNIT_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer-no-link \
                -Wno-gnu-variable-sized-type-not-at-end
HAVE_CLANG   := $(shell command -v $(FUZZ_CC) 2>/dev/null)

$(BUILD)/fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c $< -o $@
$(BUILD)/fuzz/libperch.a: $(UNIT_LIB_SRC:%.c=$(BUILD)/fuzz/obj/%.o)
	rm -f $@ && ar rcs $@ $^
$(FUZZ_BINS): $(BUILD)/fuzz/%: $(BUILD)/fuzz/obj/tests/fuzz/%.o \
		$(UNIT_HELPERS:%.c=$(BUILD)/fuzz/obj/%.o) \
		$(FUZZ_HELPERS:%.c=$(BUILD)/fuzz/obj/%.o) $(BUILD)/fuzz/libperch.a
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ $(LAUNCHER_LIBS)

.PHONY: fuzz fuzz-build
fuzz-build: $(FUZZ_BINS)
fuzz: fuzz-build
	@FUZZ_RUNS=$(FUZZ_RUNS) tests/fuzz/run.sh $(FUZZ_SECONDS) $(BUILD)/fuzz $(FUZZ_BINS)

.PHONY: test-build
test:
	@tools/install-deps.sh test
	@$(MAKE) --no-print-directory test-build
	@tests/run
test-build: all unit $(if $(HAVE_CLANG),fuzz-build)
	@:

# perchbench: the benchmark programs (bench/), one static binary that runs
# unchanged natively and inside a guest. `make perchbench` builds it.
.PHONY: perchbench
perchbench: $(BUILD)/bench/perchbench
$(BUILD)/bench/perchbench: $(wildcard bench/*.c bench/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -O2 -static -o $@ $(filter %.c,$^)

# The soak test (not in `make test`): a Linux guest looping fork, exec, pipes
# and console output for SOAK_MINUTES (default 30) under an ASan/UBSan
# build of perch, its memory and open files sampled every minute.
ASAN_PERCH := $(BUILD)/asan/perch
$(BUILD)/asan/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(LAUNCHER_CFLAGS) $(SAN_FLAGS) -c $< -o $@
$(ASAN_PERCH): $(LAUNCHER_SRC:%.c=$(BUILD)/asan/%.o) $(BUILD)/launcher/boot/embedded_images.o \
               $(BUILD)/launcher/boot/embedded_init.o $(BUILD)/launcher/boot/embedded_bench.o
	$(CC) $(SAN_FLAGS) -o $@ $^ $(LAUNCHER_LIBS)

.PHONY: soak
soak: all $(ASAN_PERCH)
	@PERCH=$(ASAN_PERCH) tests/soak.sh

# The SMP torture (not in `make test`'s length, which runs it twice): N
# boots of Debian's kernel on CPUS vCPUs (default 100 on 2), each running
# `perchbench torture` and checked shell pipelines at once, then CPU
# hotplug (tests/guests/linux_smp_torture.sh). Ends "N passed, N failed",
# as COUNT_RESULTS makes a test run's lines end.
COUNT_RESULTS = awk '{ print } /^PASS /{ p++ } /^FAIL /{ f++ } END { printf "%d passed, %d failed\n", p, f; exit (f > 0) }'
N    ?= 100
CPUS ?= 2
.PHONY: smp-torture
smp-torture: all
	@SMP_TORTURE_RUNS=$(N) SMP_TORTURE_CPUS=$(CPUS) bash tests/guests/linux_smp_torture.sh | \
		$(COUNT_RESULTS)

# Every Linux test again on several vCPUs (not in `make test`'s length):
# each `perch run` gets --cpus CPUS (default 2) unless the test chooses its
# own vCPUs (tests/perch-with.sh). Ends "N passed, N failed".
LINUX_TESTS := tests/guests/linux*.sh tests/guests/modules.sh
.PHONY: test-cpus
test-cpus: all
	@for t in $(LINUX_TESTS); do \
		PERCH=tests/perch-with.sh PERCH_WITH="--cpus $(CPUS)" PERCH_CPUS=$(CPUS) bash $$t; \
	done | $(COUNT_RESULTS)

# Every Linux test again with the guest kernel's hypercalls and irets by
# `syscall` (--trap-hypercalls on each `perch run` that does not choose
# it), the checks that count direct calls skipped. Ends "N passed, N failed".
.PHONY: test-trap-hypercalls
test-trap-hypercalls: all
	@for t in $(LINUX_TESTS); do \
		PERCH=tests/perch-with.sh PERCH_WITH=--trap-hypercalls PERCH_TRAP_HYPERCALLS=1 bash $$t; \
	done | $(COUNT_RESULTS)

# A real Debian image (not in `make test`: the first run downloads ~100 MB
# and takes minutes): `perch image debian` into build/image-check/, checked
# with e2fsck and debugfs (tests/image_check.sh). IMAGE_FRESH=1 rebuilds the
# cached root tree first.
.PHONY: image-check
image-check: $(BUILD)/perch
	@tests/image_check.sh

# The tour: the numbered markers along perch's three main paths, in order
# (docs/design.md, "The tour"), each with where it stands in the code.
tour:
	@tests/tour.sh

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
