/* perch's /init (initramfs/init.c, a static binary), carried inside the
 * perch binary like the Host, for the initramfs perch builds at run time
 * (initramfs_init_image in launcher/boot/images.c). */
    .section .rodata
    .balign 16
    .global perch_init_image, perch_init_image_end
perch_init_image:
    .incbin INIT_BIN
perch_init_image_end:
    .section .note.GNU-stack, "", @progbits
