/* The Host and Switcher images, carried inside the perch binary so that
 * build/perch is all a user needs (vm_images_get in launcher/boot/images.c). */
    .section .rodata
    .balign 4096
    .global perch_host_image, perch_host_image_end
perch_host_image:
    .incbin HOST_BIN
perch_host_image_end:
    .balign 4096
    .global perch_switcher_image, perch_switcher_image_end
perch_switcher_image:
    .incbin SWITCHER_BIN
perch_switcher_image_end:
    .section .note.GNU-stack, "", @progbits
