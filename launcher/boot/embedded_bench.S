/* perchbench (bench/perchbench.c, a static binary), carried inside the perch
 * binary like /init: the guest's /bin/perchbench in perch's initramfs, and
 * the very same bytes `perch bench` runs natively (launcher/bench/bench.c).
 * Beside it the library `perch bench --uml` preloads into UML
 * (launcher/bench/preload/uml_xstate.c). */
    .section .rodata
    .balign 16
    .global perch_bench_image, perch_bench_image_end
perch_bench_image:
    .incbin BENCH_BIN
perch_bench_image_end:
    .balign 16
    .global perch_uml_preload_image, perch_uml_preload_image_end
perch_uml_preload_image:
    .incbin UML_PRELOAD
perch_uml_preload_image_end:
    .section .note.GNU-stack, "", @progbits
