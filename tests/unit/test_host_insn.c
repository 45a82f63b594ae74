/*
 * Unit tests of the instruction decoder (host/x86/insn.c): the length of real
 * instructions (taken with `objdump -d` from perchbench, busybox, gcc, the
 * Host and the test guests, plus a few assembled with `as`), then the
 * operands, prefixes, implicit memory and addresses of chosen ones, and
 * what it refuses.
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "../../host/x86/insn.h"

struct encoding {
    const char *bytes;
    unsigned length;
    const char *what;          /* objdump's text, for the failure line */
};

/* Bytes -> length, as objdump decoded them. */
static const struct encoding encodings[] = {
    { "\xc5\xfe\x6f\x06", 4, "vmovdqu (%rsi),%ymm0" },
    { "\xc5\xfe\x6f\x4c\x16\xe0", 6, "vmovdqu -0x20(%rsi,%rdx,1),%ymm1" },
    { "\xc5\xfd\x7f\x0f", 4, "vmovdqa %ymm1,(%rdi)" },
    { "\xc5\xfd\x7f\x57\x20", 5, "vmovdqa %ymm2,0x20(%rdi)" },
    { "\x62\xf1\x7c\x48\x10\x06", 6, "vmovups (%rsi),%zmm0" },
    { "\x62\xf1\x7c\x48\x10\x4e\x01", 7, "vmovups 0x40(%rsi),%zmm1" },
    { "\xc4\xe2\x7d\x78\xc0", 5, "vpbroadcastb %xmm0,%ymm0" },
    { "\x62\xe2\x7d\x48\x7a\xc6", 6, "vpbroadcastb %esi,%zmm16" },
    { "\xc5\xfd\x74\x0f", 4, "vpcmpeqb (%rdi),%ymm0,%ymm1" },
    { "\xc5\xfd\x74\x4f\x01", 5, "vpcmpeqb 0x1(%rdi),%ymm0,%ymm1" },
    { "\x62\xa1\x65\xa1\xda\xda", 6, "vpminub %ymm18,%ymm19,%ymm19{%k1}{z}" },
    { "\xc5\xdd\xda\xd5", 4, "vpminub %ymm5,%ymm4,%ymm2" },
    { "\xc5\xf8\x77", 3, "vzeroupper" },
    { "\xc5\xf9\xef\xc0", 4, "vpxor %xmm0,%xmm0,%xmm0" },
    { "\x62\xa1\xc5\x00\xef\xff", 6, "vpxorq %xmm23,%xmm23,%xmm23" },
    { "\x62\xb2\x75\x20\x26\xd1", 6, "vptestmb %ymm17,%ymm17,%k2" },
    { "\xc5\xfd\xd7\xc1", 4, "vpmovmskb %ymm1,%eax" },
    { "\xc4\xc1\x7d\xd7\xc1", 5, "vpmovmskb %ymm9,%eax" },
    { "\x62\xf3\x7d\x20\x3f\x07\x00", 7, "vpcmpeqb (%rdi),%ymm16,%k0" },
    { "\x62\xf3\x7d\x20\x3f\x47\x01\x00", 8, "vpcmpeqb 0x20(%rdi),%ymm16,%k0" },
    { "\xc4\xe1\xf9\x98\xda", 5, "kortestd %k2,%k3" },
    { "\xf3\xa4", 2, "rep movsb %ds:(%rsi),%es:(%rdi)" },
    { "\xf3\x48\xab", 3, "rep stosq %rax,%es:(%rdi)" },
    { "\x43\x0f\xbe\x44\x05\x00", 6, "movsbl 0x0(%r13,%r8,1),%eax" },
    { "\x0f\xbe\x14\x11", 4, "movsbl (%rcx,%rdx,1),%edx" },
    { "\xf0\x0f\xc1\x03", 4, "lock xaddl %eax,(%rbx)" },
    { "\xf0\x0f\xc1\x15\xf4\xe0\x08\x00", 8, "lock xaddl %edx,0x8e0f4(%rip) # 4aa77c <mp_+0x3c>" },
    { "\x66\x90", 2, "xchg %ax,%ax" },
    { "\x4c\x87\x60\x08", 4, "xchg %r12,0x8(%rax)" },
    { "\xf0\xff\x0d\xa9\x6f\x0a\x00", 7, "lock decl 0xa6fa9(%rip) # 4aa700 <__nptl_nthreads>" },
    { "\xf0\x83\x43\x04\x01", 5, "lock addl $0x1,0x4(%rbx)" },
    { "\x4c\x0f\xa3\xf0", 4, "bt %r14,%rax" },
    { "\x48\x0f\xba\xef\x3f", 5, "bts $0x3f,%rdi" },
    { "\xff\x25\xe2\x8f\x0a\x00", 6, "jmpq *0xa8fe2(%rip) # 4aa000 <_GLOBAL_OFFSET_TABLE_+0x18>" },
    { "\x48\x8d\x1d\xee\xeb\x0a\x00", 7, "leaq 0xaebee(%rip),%rbx # 4afd10 <lock>" },
    { "\x48\x8d\x14\xc5\x00\x00\x00\x00", 8, "leaq 0x0(,%rax,8),%rdx" },
    { "\x8d\x04\x8d\x00\x00\x00\x00", 7, "leal 0x0(,%rcx,4),%eax" },
    { "\x64\x48\x8b\x04\x25\x28\x00\x00\x00", 9, "movq %fs:0x28,%rax" },
    { "\x64\x83\x38\x09", 4, "cmpl $0x9,%fs:(%rax)" },
    { "\x67\xe8\x9f\x29\x00\x00", 6, "addr32 callq 4045a0 <__libc_start_main>" },
    { "\x67\x8d\x51\xff", 4, "leal -0x1(%ecx),%edx" },
    { "\x53", 1, "push %rbx" },
    { "\x41\x55", 2, "push %r13" },
    { "\x5b", 1, "pop %rbx" },
    { "\x41\x5c", 2, "pop %r12" },
    { "\x68\x00\xb0\x10\x80", 5, "push $0xffffffff8010b000" },
    { "\x9c", 1, "pushfq" },
    { "\x9d", 1, "popfq" },
    { "\xff\xd5", 2, "call *%rbp" },
    { "\xff\x24\xd5\xc0\x10\x10\x80", 7, "jmp *-0x7fefef40(,%rdx,8)" },
    { "\xff\xe0", 2, "jmp *%rax" },
    { "\xe8\xd7\x00\x00\x00", 5, "call ffffffff801000f0 <rt_start>" },
    { "\xc3", 1, "retq" },
    { "\xc9", 1, "leaveq" },
    { "\x48\xb8\x01\x01\x01\x01\x01\x01\x01\x01", 10, "movabsq $0x101010101010101,%rax" },
    { "\xa3\x80\x03\xe0\xbf\x80\x80\xff\xff", 9, "movabsl %eax,0xffff8080bfe00380" },
    { "\x0f\xb6\xd6", 3, "movzbl %dh,%edx" },
    { "\x0f\xb6\x74\x24\x30", 5, "movzbl 0x30(%rsp),%esi" },
    { "\x4a\x0f\xbe\x34\x30", 5, "movsbq (%rax,%r14,1),%rsi" },
    { "\x48\x0f\xbe\x54\x24\x30", 6, "movsbq 0x30(%rsp),%rdx" },
    { "\x49\x63\xd7", 3, "movslq %r15d,%rdx" },
    { "\x48\x63\x05\x42\x7d\x0a\x00", 7, "movslq 0xa7d42(%rip),%rax # 4aa0d4 <opt+0x4>" },
    { "\x48\x69\xd2\xc0\xc6\x2d\x00", 7, "imul $0x2dc6c0,%rdx,%rdx" },
    { "\x69\xc0\xe8\x03\x00\x00", 6, "imul $0x3e8,%eax,%eax" },
    { "\xf7\x03\x00\x80\x00\x00", 6, "testl $0x8000,(%rbx)" },
    { "\xf7\x45\x00\x00\x80\x00\x00", 7, "testl $0x8000,0x0(%rbp)" },
    { "\x83\x3d\xa7\xeb\x0a\x00\x00", 7, "cmpl $0x0,0xaeba7(%rip) # 4afd20 <stage>" },
    { "\x83\xf8\x01", 3, "cmpl $0x1,%eax" },
    { "\x48\xc1\xe2\x20", 4, "shl $0x20,%rdx" },
    { "\x49\xd3\xea", 3, "shr %cl,%r10" },
    { "\x48\xc1\xf8\x03", 4, "sarq $0x3,%rax" },
    { "\x48\xd1\xfe", 3, "sarq %rsi" },
    { "\x48\xc1\xc2\x11", 4, "rolq $0x11,%rdx" },
    { "\x48\xd3\xc0", 3, "rolq %cl,%rax" },
    { "\x0f\x29\x84\x24\x50\x02\x00\x00", 8, "movaps %xmm0,0x250(%rsp)" },
    { "\x0f\x29\x44\x24\x20", 5, "movaps %xmm0,0x20(%rsp)" },
    { "\x0f\x11\x46\x08", 4, "movups %xmm0,0x8(%rsi)" },
    { "\x0f\x11\x05\x30\x01\x0b\x00", 7, "movups %xmm0,0xb0130(%rip) # 4b4c90 <_dl_x86_cpu_features+0x" },
    { "\xf3\x0f\x6f\x06", 4, "movdqu (%rsi),%xmm0" },
    { "\xf3\x0f\x6f\x4d\xf0", 5, "movdqu -0x10(%rbp),%xmm1" },
    { "\x66\x0f\x6f\x44\x24\x20", 6, "movdqa 0x20(%rsp),%xmm0" },
    { "\x66\x0f\x6f\x05\x00\x38\x07\x00", 8, "movdqa 0x73800(%rip),%xmm0 # 47e9e0 <__PRETTY_FUNCTION__.1+0" },
    { "\x66\x0f\xd6\x05\x88\x03\x0b\x00", 8, "movq %xmm0,0xb0388(%rip) # 4b4b48 <_dl_x86_cpu_features+0x8>" },
    { "\x66\x48\x0f\x7e\xc8", 5, "movq %xmm1,%rax" },
    { "\x66\x41\x0f\x6e\xc0", 5, "movd %r8d,%xmm0" },
    { "\x66\x0f\x6e\xd6", 4, "movd %esi,%xmm2" },
    { "\x66\x0f\x70\xc0\x00", 5, "pshufd $0x0,%xmm0,%xmm0" },
    { "\x66\x0f\xef\xc0", 4, "pxor %xmm0,%xmm0" },
    { "\x66\x45\x0f\xef\xc9", 5, "pxor %xmm9,%xmm9" },
    { "\x66\x0f\x74\xc1", 4, "pcmpeqb %xmm1,%xmm0" },
    { "\x66\x0f\x74\x4f\x30", 5, "pcmpeqb 0x30(%rdi),%xmm1" },
    { "\x66\x0f\xd7\xc0", 4, "pmovmskb %xmm0,%eax" },
    { "\x66\x44\x0f\xd7\xc9", 5, "pmovmskb %xmm1,%r9d" },
    { "\x66\x0f\x3a\x0f\xda\x0f", 6, "palignr $0xf,%xmm2,%xmm3" },
    { "\x66\x0f\x3a\x0f\x44\x17\xf0\x01", 8, "palignr $0x1,-0x10(%rdi,%rdx,1),%xmm0" },
    { "\x66\x0f\xc5\xf8\x00", 5, "pextrw $0x0,%xmm0,%edi" },
    { "\xf2\x49\x0f\x2a\xc7", 5, "cvtsi2sdq %r15,%xmm0" },
    { "\xf2\x0f\x2a\xc0", 4, "cvtsi2sdl %eax,%xmm0" },
    { "\xf2\x48\x0f\x2c\xc8", 5, "cvttsd2si %xmm0,%rcx" },
    { "\xf2\x0f\x2c\xd0", 4, "cvttsd2si %xmm0,%edx" },
    { "\xf2\x0f\x59\xc1", 4, "mulsd %xmm1,%xmm0" },
    { "\xf2\x0f\x59\x05\x92\xb3\x07\x00", 8, "mulsd 0x7b392(%rip),%xmm0 # 47d838 <_IO_stdin_used+0x838>" },
    { "\x66\x0f\x2e\xc0", 4, "ucomisd %xmm0,%xmm0" },
    { "\x66\x0f\x2e\x0d\xfe\x22\x04\x00", 8, "ucomisd 0x422fe(%rip),%xmm1 # 4916f0 <_itoa_upper_digits+0xf" },
    { "\xf2\x41\x0f\x10\x04\x24", 6, "movsd (%r12),%xmm0" },
    { "\xf2\x41\x0f\x10\x54\x24\x10", 7, "movsd 0x10(%r12),%xmm2" },
    { "\xf3\x0f\x10\x05\x97\x29\x02\x00", 8, "movss 0x22997(%rip),%xmm0 # 4994f0 <__PRETTY_FUNCTION__.0+0x" },
    { "\xf3\x0f\x11\x00", 4, "movss %xmm0,(%rax)" },
    { "\xf3\x0f\xbc\xc0", 4, "tzcntl %eax,%eax" },
    { "\xf3\x48\x0f\xbc\xc0", 5, "tzcntq %rax,%rax" },
    { "\xf3\x0f\xbd\xc9", 4, "lzcntl %ecx,%ecx" },
    { "\xf3\x48\x0f\xbd\xc9", 5, "lzcntq %rcx,%rcx" },
    { "\x0f\xbc\xc0", 3, "bsfl %eax,%eax" },
    { "\x48\x0f\xbc\xd1", 4, "bsfq %rcx,%rdx" },
    { "\x0f\xbd\x4c\x24\xe8", 5, "bsrl -0x18(%rsp),%ecx" },
    { "\x41\x0f\xbd\xcf", 4, "bsrl %r15d,%ecx" },
    { "\x0f\xc8", 2, "bswap %eax" },
    { "\x41\x0f\xc9", 3, "bswap %r9d" },
    { "\x0f\xa2", 2, "cpuid" },
    { "\x0f\x31", 2, "rdtsc" },
    { "\x0f\x05", 2, "syscall" },
    { "\x0f\x0b", 2, "ud2" },
    { "\xf4", 1, "hlt" },
    { "\xcc", 1, "int3" },
    { "\x66\x0f\x1f\x44\x00\x00", 6, "nopw 0x0(%rax,%rax,1)" },
    { "\x66\x0f\x1f\x84\x00\x00\x00\x00\x00", 9, "nopw 0x0(%rax,%rax,1)" },
    { "\x0f\x1f\x80\x00\x00\x00\x00", 7, "nopl 0x0(%rax)" },
    { "\x0f\x1f\x44\x00\x00", 5, "nopl 0x0(%rax,%rax,1)" },
    { "\x66\x66\x2e\x0f\x1f\x84\x00\x00\x00\x00\x00", 11, "data16 cs nopw 0x0(%rax,%rax,1)" },
    { "\x66\x66\x66\x64\x48\x8b\x04\x25\x00\x00\x00\x00", 12, "data16 data16 data16 movq %fs:0x0,%rax" },
    { "\x66\x2e\x0f\x1f\x84\x00\x00\x00\x00\x00", 10, "cs nopw 0x0(%rax,%rax,1)" },
    { "\x48\x0f\x48\xc2", 4, "cmovsq %rdx,%rax" },
    { "\x0f\x43\xce", 3, "cmovael %esi,%ecx" },
    { "\x0f\x92\xc0", 3, "setb %al" },
    { "\x0f\x94\x05\xe7\xc0\x0a\x00", 7, "sete 0xac0e7(%rip) # 4ae268 <mark_open>" },
    { "\x74\x02", 2, "je 401012 <_init+0x12>" },
    { "\x0f\x84\x4b\x05\x00\x00", 6, "je 401ad4 <main+0x574>" },
    { "\x48\x8d\x25\xf1\x6f\x00\x00", 7, "lea 0x6ff1(%rip),%rsp # ffffffff80107000 <rt_boot_rsp>" },
    { "\x48\x8d\x44\x24\x60", 5, "lea 0x60(%rsp),%rax" },
    { "\x19\xc0", 2, "sbbl %eax,%eax" },
    { "\x83\xd8\x00", 3, "sbbl $0x0,%eax" },
    { "\x48\x83\xd0\x00", 4, "adcq $0x0,%rax" },
    { "\x83\xd0\xff", 3, "adcl $0xffffffff,%eax" },
    { "\x48\xf7\xd8", 3, "negq %rax" },
    { "\xf7\xd8", 2, "negl %eax" },
    { "\xf7\xd0", 2, "notl %eax" },
    { "\x41\xf7\xd7", 3, "notl %r15d" },
    { "\xf2\x0f\x5e\xc1", 4, "divsd %xmm1,%xmm0" },
    { "\xf7\xf1", 2, "divl %ecx" },
    { "\x49\xf7\xfb", 3, "idivq %r11" },
    { "\xf7\xf9", 2, "idivl %ecx" },
    { "\x48\xf7\xe2", 3, "mul %rdx" },
    { "\x48\x99", 2, "cqto" },
    { "\x48\x98", 2, "cltq" },
    { "\xf3\x0f\x1e\xfa", 4, "endbr64" },
    { "\xc7\xf8\x00\x00\x00\x00", 6, "xbeginq 46f064 <__lll_lock_elision+0x34>" },
    { "\xc4\x42\x49\xf7\xd2", 5, "shlxl %esi,%r10d,%r10d" },
    { "\xc4\xe2\x72\xf7\xc0", 5, "sarxl %ecx,%eax,%eax" },
    { "\xc4\xe2\xe8\xf5\xc9", 5, "bzhiq %rdx,%rcx,%rcx" },
    { "\xc4\xe2\x79\x58\xc0", 5, "vpbroadcastd %xmm0,%xmm0" },
    { "\x62\xe2\x7d\x48\x7c\xc6", 6, "vpbroadcastd %esi,%zmm16" },
    { "\xc4\xe2\x71\x00\xc0", 5, "vpshufb %xmm0,%xmm1,%xmm0" },
    { "\x62\xf3\x65\x28\x25\xe2\xfe", 7, "vpternlogd $0xfe,%ymm2,%ymm3,%ymm4" },
    { "\x62\xe3\x6d\x20\x25\x7e\x03\xde", 8, "vpternlogd $0xde,0x60(%rsi),%ymm18,%ymm23" },
    { "\x62\xf1\xfe\x48\x6f\x06", 6, "vmovdqu64 (%rsi),%zmm0" },
    { "\x62\xf1\xfe\x48\x6f\x4e\x01", 7, "vmovdqu64 0x40(%rsi),%zmm1" },
    { "\x62\xe1\x7f\x49\x7f\x00", 6, "vmovdqu8 %zmm16,(%rax){%k1}" },
    { "\xdb\x29", 2, "fldt (%rcx)" },
    { "\xdb\x2d\xf2\x24\x04\x00", 6, "fldt 0x424f2(%rip) # 4916c0 <_itoa_upper_digits+0xc0>" },
    { "\xdb\x38", 2, "fstpt (%rax)" },
    { "\xdb\xbc\x24\xa0\x00\x00\x00", 7, "fstpt 0xa0(%rsp)" },
    { "\xd9\xbd\x5a\xff\xff\xff", 6, "fnstcw -0xa6(%rbp)" },
    { "\xd9\x7c\x24\x7e", 4, "fnstcw 0x7e(%rsp)" },
    { "\xe5\xe0", 2, "in $0xe0,%eax" },
    { "\xe6\xe0", 2, "out %al,$0xe0" },
    { "\xef", 1, "out %eax,(%dx)" },
    { "\x0f\x30", 2, "wrmsr" },
    { "\x0f\x32", 2, "rdmsr" },
    { "\x0f\x01\xd0", 3, "xgetbv" },
    { "\x66\x0f\x3a\x63\xc1\x1a", 6, "pcmpistri $0x1a,%xmm1,%xmm0" },
    { "\x66\x0f\x3a\x63\x04\x16\x1a", 7, "pcmpistri $0x1a,(%rsi,%rdx,1),%xmm0" },
    { "\x0f\x38\xf0\x07", 4, "movbel (%rdi),%eax" },
    { "\x0f\x38\xf0\x7c\x17\xfc", 6, "movbel -0x4(%rdi,%rdx,1),%edi" },
    { "\x0f\x18\x8e\x80\x00\x00\x00", 7, "prefetcht0 0x80(%rsi)" },
    { "\x0f\x18\x16", 3, "prefetcht1 (%rsi)" },
    { "\x0f\xae\xf8", 3, "sfence" },
    { "\xf3\x90", 2, "pause" },
    { "\x31\xed", 2, "xor %ebp,%ebp" },
    { "\x45\x31\xd2", 3, "xor %r10d,%r10d" },
    { "\x41\x83\xe6\x3f", 4, "and $0x3f,%r14d" },
    { "\x83\xe0\x01", 3, "and $0x1,%eax" },
    { "\x48\x09\xd0", 3, "or %rdx,%rax" },
    { "\x48\x83\xce\x67", 4, "or $0x67,%rsi" },
    { "\x48\x81\xc4\x00\x02\x00\x00", 7, "add $0x200,%rsp" },
    { "\x48\x83\xc4\x58", 4, "add $0x58,%rsp" },
    { "\x48\x81\xec\x00\x02\x00\x00", 7, "sub $0x200,%rsp" },
    { "\x48\x83\xec\x58", 4, "sub $0x58,%rsp" },
    { "\xbe\x00\x02\x00\x00", 5, "mov $0x200,%esi" },
    { "\x48\xc7\xc7\x20\x20\x10\x80", 7, "mov $0xffffffff80102020,%rdi" },
    { "\xc6\x44\x24\x0f\x00", 5, "movb $0x0,0xf(%rsp)" },
    { "\xc6\x05\x01\x8b\x0a\x00\x01", 7, "movb $0x1,0xa8b01(%rip) # 4aa0d8 <opt+0x8>" },
    { "\x66\xc7\x47\x08\x00\x00", 6, "movw $0x0,0x8(%rdi)" },
    { "\x66\x41\xc7\x40\x04\x00\x00", 7, "movw $0x0,0x4(%r8)" },
    { "\xba\x01\x00\x00\x00", 5, "movl $0x1,%edx" },
    { "\x41\xba\x08\x00\x00\x00", 6, "movl $0x8,%r10d" },
    { "\x48\xc7\xc0\x00\x00\x00\x00", 7, "movq $0x0,%rax" },
    { "\x48\xc7\x05\x25\xbc\x0a\x00\x00\x00\x00\x00", 11, "movq $0x0,0xabc25(%rip) # 4ae270 <current>" },
    { "\xf0\x48\x0f\xc7\x0f", 5, "lock cmpxchg16b (%rdi)" },
    { "\xf0\x48\x0f\xc7\x4c\x24\x10", 7, "lock cmpxchg16b 0x10(%rsp)" },
    { "\xf0\x0f\xc7\x0e", 4, "lock cmpxchg8b (%rsi)" },
    { "\xf0\x48\x0f\xb1\x17", 5, "lock cmpxchg %rdx,(%rdi)" },
    { "\x65\x48\x8b\x04\x25\x34\x12\x00\x00", 9, "mov %gs:0x1234,%rax" },
    { "\x65\x48\x8b\x10", 4, "mov %gs:(%rax),%rdx" },
    { "\x65\xff\x44\x8b\x10", 5, "incl %gs:0x10(%rbx,%rcx,4)" },
    { "\x64\x48\x8b\x4d\xf8", 5, "mov %fs:-0x8(%rbp),%rcx" },
    { "\xc4\x01\x7e\x6f\x64\xd1\x20", 7, "vmovdqu 0x20(%r9,%r10,8),%ymm12" },
    { "\xc4\x41\x7e\x7f\x07", 5, "vmovdqu %ymm8,(%r15)" },
    { "\x62\xe1\xfe\x48\x6f\x4f\x01", 7, "vmovdqu64 0x40(%rdi),%zmm17" },
    { "\xf3\x48\xab", 3, "rep stos %rax,%es:(%rdi)" },
    { "\xf3\x48\xa5", 3, "rep movsq %ds:(%rsi),%es:(%rdi)" },
    { "\x67\xf3\xa4", 3, "rep movsb %ds:(%esi),%es:(%edi)" },
    { "\xa5", 1, "movsl %ds:(%rsi),%es:(%rdi)" },
    { "\x66\x50", 2, "push %ax" },
    { "\x66\x5b", 2, "pop %bx" },
    { "\x41\x54", 2, "push %r12" },
    { "\x41\x5f", 2, "pop %r15" },
    { "\xff\x70\x08", 3, "push 0x8(%rax)" },
    { "\x8f\x07", 2, "pop (%rdi)" },
    { "\xff\x14\xd8", 3, "call *(%rax,%rbx,8)" },
    { "\x41\xff\xe3", 3, "jmp *%r11" },
    { "\x48\xb8\x88\x77\x66\x55\x44\x33\x22\x11", 10, "movabs $0x1122334455667788,%rax" },
    { "\xa0\x88\x77\x66\x55\x44\x33\x22\x11", 9, "movabs 0x1122334455667788,%al" },
    { "\x89\x04\x25\x78\x56\x34\x12", 7, "mov %eax,0x12345678" },
    { "\x4a\x8d\x34\x65\x78\x56\x34\x12", 8, "lea 0x12345678(,%r12,2),%rsi" },
    { "\x49\x8b\x45\x00", 4, "mov 0x0(%r13),%rax" },
    { "\x48\x8b\x45\x00", 4, "mov 0x0(%rbp),%rax" },
    { "\x48\x8b\x04\x2d\x00\x00\x00\x00", 8, "mov 0x0(,%rbp,1),%rax" },
    { "\x48\x8b\x04\x24", 4, "mov (%rsp),%rax" },
    { "\x49\x8b\x04\x24", 4, "mov (%r12),%rax" },
    { "\x48\x0f\xb1\x0a", 4, "cmpxchg %rcx,(%rdx)" },
    { "\x48\x87\x07", 3, "xchg %rax,(%rdi)" },
    { "\x48\x0f\xba\x37\x05", 5, "btrq $0x5,(%rdi)" },
    { "\x48\x0f\xab\x77\x08", 5, "bts %rsi,0x8(%rdi)" },
    { "\x80\x27\xfd", 3, "andb $0xfd,(%rdi)" },
    { "\x48\x83\x08\x40", 4, "orq $0x40,(%rax)" },
    { "\xc8\x20\x00\x00", 4, "enter $0x20,$0x0" },
    { "\xc9", 1, "leave" },
    { "\xc2\x08\x00", 3, "ret $0x8" },
    { "\xc4\xe2\x6d\x90\x04\x88", 6, "vpgatherdd %ymm2,(%rax,%ymm1,4),%ymm0" },
    { "\xf6\x47\x10\x01", 4, "testb $0x1,0x10(%rdi)" },
    { "\xf7\x06\x00\x01\x00\x00", 6, "testl $0x100,(%rsi)" },
    { "\xf7\x10", 2, "notl (%rax)" },
};

/* Decode `s` (a string literal of bytes) followed by filler, as code is. */
static int decode(struct insn *in, const char *s, size_t n)
{
    uint8_t buf[32];

    memset(buf, 0x90, sizeof(buf));
    memcpy(buf, s, n);
    return insn_decode(in, buf, sizeof(buf));
}
#define DECODE(in, s) decode((in), (s), sizeof(s) - 1)

static void lengths_of_real_instructions(void)
{
    for (size_t i = 0; i < sizeof(encodings) / sizeof(encodings[0]); i++) {
        const struct encoding *e = &encodings[i];
        struct insn in;
        int rc = decode(&in, e->bytes, e->length);

        if (rc != 0 || in.length != e->length) {
            printf("FAIL %s: \"%s\" gave %d, length %u, not %u\n", check_case_name,
                   e->what, rc, rc ? 0 : in.length, e->length);
            check_case_failed = 1;
            return;
        }
    }
}

/* The exact bytes are enough: nothing past the end is read. */
static void exact_bytes_are_enough_one_fewer_is_truncated(void)
{
    for (size_t i = 0; i < sizeof(encodings) / sizeof(encodings[0]); i++) {
        const struct encoding *e = &encodings[i];
        struct insn in;

        CHECK(insn_decode(&in, (const uint8_t *)e->bytes, e->length) == 0);
        CHECK(in.length == e->length);
        CHECK(insn_decode(&in, (const uint8_t *)e->bytes, e->length - 1) == INSN_TRUNCATED);
    }
    CHECK(insn_decode(&(struct insn){ 0 }, (const uint8_t *)"", 0) == INSN_TRUNCATED);
}

static struct cpu_regs regs_with_numbers(void)
{
    struct cpu_regs r;

    memset(&r, 0, sizeof(r));
    for (unsigned i = 0; i < 16; i++)
        *insn_gpr(&r, i) = 0x1000ull * (i + 1);
    r.rip = 0xffffffff81000000ull;
    return r;
}

static void register_numbers_follow_the_x86_order(void)
{
    struct cpu_regs r;
    uint64_t *const want[16] = {
        &r.rax, &r.rcx, &r.rdx, &r.rbx, &r.rsp, &r.rbp, &r.rsi, &r.rdi,
        &r.r8, &r.r9, &r.r10, &r.r11, &r.r12, &r.r13, &r.r14, &r.r15,
    };

    for (unsigned i = 0; i < 16; i++)
        CHECK(insn_gpr(&r, i) == want[i]);
    CHECK(insn_gpr(&r, 16 + 3) == &r.rbx);   /* only the low 4 bits count */
}

static void base_index_scale_displacement(void)
{
    struct cpu_regs r = regs_with_numbers();
    struct insn in;
    uint64_t va;

    /* mov 0x20(%r9,%r10,8) in VEX: vmovdqu 0x20(%r9,%r10,8),%ymm12 */
    CHECK(DECODE(&in, "\xc4\x01\x7e\x6f\x64\xd1\x20") == 0);
    CHECK(in.vex && in.map == INSN_MAP_0F && in.opcode == 0x6f && in.vex_l == 1);
    CHECK(in.vex_pp == 2 && in.reg == 12 && in.has_sib);
    CHECK(in.base == 9 && in.index == 10 && in.scale == 8 && in.displacement == 0x20);
    CHECK(insn_memory_address(&in, &r, 0, 0, &va) && va == 0xa000 + 0xb000 * 8 + 0x20);
    /* lea 0x12345678(,%r12,2),%rsi: SIB without a base */
    CHECK(DECODE(&in, "\x4a\x8d\x34\x65\x78\x56\x34\x12") == 0);
    CHECK(in.base == INSN_REG_NONE && in.index == 12 && in.scale == 2);
    CHECK(in.displacement == 0x12345678 && in.disp_size == 4 && in.reg == 6);
    CHECK(insn_memory_address(&in, &r, 0, 0, &va) && va == 0x12345678 + 0xd000 * 2);
    /* mov 0x0(%r13),%rax: r13 needs a displacement byte, like rbp */
    CHECK(DECODE(&in, "\x49\x8b\x45\x00") == 0);
    CHECK(in.base == 13 && in.index == INSN_REG_NONE && in.disp_size == 1);
    /* mov (%r12),%rax: r12 needs a SIB, like rsp */
    CHECK(DECODE(&in, "\x49\x8b\x04\x24") == 0);
    CHECK(in.has_sib && in.base == 12 && in.index == INSN_REG_NONE);
    /* mov %eax,0x12345678: an absolute address (SIB, no base, no index) */
    CHECK(DECODE(&in, "\x89\x04\x25\x78\x56\x34\x12") == 0);
    CHECK(insn_memory_address(&in, &r, 0, 0, &va) && va == 0x12345678);
    /* A negative displacement: mov %fs:-0x8(%rbp),%rcx */
    CHECK(DECODE(&in, "\x64\x48\x8b\x4d\xf8") == 0);
    CHECK(in.displacement == -8 && in.seg == INSN_SEG_FS && in.operand_size == 8);
    CHECK(insn_memory_address(&in, &r, 0x7f0000, 0x5000000, &va) && va == 0x7f0000 + 0x6000 - 8);
}

static void rip_relative_counts_from_the_next_instruction(void)
{
    struct cpu_regs r = regs_with_numbers();
    struct insn in;
    uint64_t va;

    /* lock xaddl %edx,0x8e0f4(%rip) */
    CHECK(DECODE(&in, "\xf0\x0f\xc1\x15\xf4\xe0\x08\x00") == 0);
    CHECK(in.lock && in.base == INSN_REG_RIP && in.length == 8);
    CHECK(insn_memory_address(&in, &r, 0, 0, &va) && va == r.rip + 8 + 0x8e0f4);
    /* cmpl $0x0,0xaeba7(%rip): the immediate comes after the displacement */
    CHECK(DECODE(&in, "\x83\x3d\xa7\xeb\x0a\x00\x00") == 0);
    CHECK(in.imm_size == 1 && in.immediate == 0 && in.length == 7);
    CHECK(insn_memory_address(&in, &r, 0, 0, &va) && va == r.rip + 7 + 0xaeba7);
}

static void segment_overrides_and_their_bases(void)
{
    struct cpu_regs r = regs_with_numbers();
    struct insn in;
    uint64_t va;

    /* mov %gs:0x1234,%rax */
    CHECK(DECODE(&in, "\x65\x48\x8b\x04\x25\x34\x12\x00\x00") == 0);
    CHECK(in.seg == INSN_SEG_GS && in.rex_w && in.base == INSN_REG_NONE);
    CHECK(insn_memory_address(&in, &r, 0x1111, 0x40000000, &va) && va == 0x40001234);
    /* incl %gs:0x10(%rbx,%rcx,4) */
    CHECK(DECODE(&in, "\x65\xff\x44\x8b\x10") == 0);
    CHECK(insn_memory_address(&in, &r, 0, 0x40000000, &va));
    CHECK(va == 0x40000000 + 0x4000 + 0x2000 * 4 + 0x10);
    /* ds, cs, es, ss have no base in 64-bit mode: cs nopw 0x0(%rax,%rax,1) */
    CHECK(DECODE(&in, "\x2e\x0f\x1f\x84\x00\x00\x00\x00\x00") == 0);
    CHECK(in.seg == INSN_SEG_CS && in.length == 9);
    CHECK(insn_memory_address(&in, &r, 0x1111, 0x2222, &va) && va == 0x1000 + 0x1000);
}

static void address_size_prefix_truncates_to_32_bits(void)
{
    struct cpu_regs r = regs_with_numbers();
    struct insn in;
    uint64_t va;

    r.rcx = 0xffffffff00000010ull;
    /* leal -0x1(%ecx),%edx */
    CHECK(DECODE(&in, "\x67\x8d\x51\xff") == 0);
    CHECK(in.addrsize_prefix && in.address_size == 4 && in.length == 4);
    CHECK(insn_memory_address(&in, &r, 0, 0, &va) && va == 0xf);
    /* A moffs takes the address size: 8 bytes, or 4 with 0x67. */
    CHECK(DECODE(&in, "\xa0\x88\x77\x66\x55\x44\x33\x22\x11") == 0);
    CHECK(in.length == 9 && in.operand_size == 1 && in.disp_size == 8);
    CHECK(insn_memory_address(&in, &r, 0, 0, &va) && va == 0x1122334455667788ull);
    CHECK(DECODE(&in, "\x67\xa1\x44\x33\x22\x11") == 0);
    CHECK(in.length == 6 && in.operand_size == 4);
    CHECK(insn_memory_address(&in, &r, 0, 0, &va) && va == 0x11223344);
}

static void operand_sizes(void)
{
    struct insn in;

    CHECK(DECODE(&in, "\x80\x27\xfd") == 0 && in.operand_size == 1);         /* andb */
    CHECK(DECODE(&in, "\x66\x89\x07") == 0 && in.operand_size == 2);         /* mov %ax */
    CHECK(DECODE(&in, "\x89\x07") == 0 && in.operand_size == 4);
    CHECK(DECODE(&in, "\x48\x89\x07") == 0 && in.operand_size == 8);
    CHECK(DECODE(&in, "\x66\x48\x89\x07") == 0 && in.operand_size == 8);     /* W wins */
    CHECK(DECODE(&in, "\x41\x54") == 0 && in.operand_size == 8);             /* push %r12 */
    CHECK(DECODE(&in, "\x66\x50") == 0 && in.operand_size == 2);             /* push %ax */
    CHECK(DECODE(&in, "\xff\x14\xd8") == 0 && in.operand_size == 8);         /* call *m */
    /* Immediates follow the operand size: 2 bytes with 0x66, 8 for movabs. */
    CHECK(DECODE(&in, "\x66\x81\x07\x34\x12") == 0 && in.length == 5 && in.imm_size == 2);
    CHECK(DECODE(&in, "\x48\x81\x07\x78\x56\x34\x12") == 0 && in.imm_size == 4);
    CHECK(DECODE(&in, "\x48\xb8\x88\x77\x66\x55\x44\x33\x22\x11") == 0);
    CHECK(in.imm_size == 8 && (uint64_t)in.immediate == 0x1122334455667788ull);
}

static void immediates_are_sign_extended(void)
{
    struct insn in;

    CHECK(DECODE(&in, "\x48\x83\x08\xc0") == 0 && in.immediate == -64);      /* orq $-64 */
    CHECK(DECODE(&in, "\x48\xc7\x07\x00\x00\x00\x80") == 0);
    CHECK(in.immediate == -0x80000000ll && in.imm_size == 4);
    CHECK(DECODE(&in, "\xe4\xf0") == 0 && (uint8_t)in.immediate == 0xf0);   /* in $0xf0,%al */
    /* enter $0x20,$0x1: two immediates */
    CHECK(DECODE(&in, "\xc8\x20\x00\x01") == 0);
    CHECK(in.length == 4 && in.immediate == 0x20 && in.immediate2 == 1);
    /* Relative branches: the displacement is the immediate. */
    CHECK(DECODE(&in, "\xe8\x9f\x29\x00\x00") == 0 && in.relative && in.immediate == 0x299f);
    CHECK(DECODE(&in, "\x75\xfe") == 0 && in.relative && in.immediate == -2);
    CHECK(DECODE(&in, "\x0f\x84\x00\x01\x00\x00") == 0 && in.relative && in.length == 6);
}

static void group_3_test_has_an_immediate_the_others_not(void)
{
    struct insn in;

    CHECK(DECODE(&in, "\xf6\x47\x10\x01") == 0 && in.length == 4 && in.imm_size == 1);
    CHECK(DECODE(&in, "\xf7\x06\x00\x01\x00\x00") == 0 && in.length == 6);
    CHECK(DECODE(&in, "\xf7\x10") == 0 && in.length == 2 && in.imm_size == 0);  /* not */
    CHECK(DECODE(&in, "\xf6\x30") == 0 && in.length == 2);                      /* div */
}

static void string_instructions_use_rsi_and_rdi(void)
{
    struct cpu_regs r = regs_with_numbers();
    struct insn in;
    uint64_t va;

    /* rep movsb */
    CHECK(DECODE(&in, "\xf3\xa4") == 0);
    CHECK(in.rep && !in.repne && in.operand_size == 1 && !in.has_memory_operand);
    CHECK(in.implicit == (INSN_IMPLICIT_RSI | INSN_IMPLICIT_RDI));
    CHECK(insn_implicit_address(&in, &r, 0, 0, INSN_IMPLICIT_RSI, &va) && va == r.rsi);
    CHECK(insn_implicit_address(&in, &r, 0, 0, INSN_IMPLICIT_RDI, &va) && va == r.rdi);
    CHECK(!insn_implicit_address(&in, &r, 0, 0, INSN_IMPLICIT_PUSH, &va));
    /* rep stos %rax: es:[rdi] only */
    CHECK(DECODE(&in, "\xf3\x48\xab") == 0);
    CHECK(in.implicit == INSN_IMPLICIT_RDI && in.operand_size == 8);
    /* repnz scasb, lodsb */
    CHECK(DECODE(&in, "\xf2\xae") == 0 && in.repne && in.implicit == INSN_IMPLICIT_RDI);
    CHECK(DECODE(&in, "\xac") == 0 && in.implicit == INSN_IMPLICIT_RSI);
    /* A source override applies to rsi, never to es:[rdi]: fs movsb */
    CHECK(DECODE(&in, "\x64\xa4") == 0);
    CHECK(insn_implicit_address(&in, &r, 0x100000, 0, INSN_IMPLICIT_RSI, &va));
    CHECK(va == 0x100000 + r.rsi);
    CHECK(insn_implicit_address(&in, &r, 0x100000, 0, INSN_IMPLICIT_RDI, &va) && va == r.rdi);
    /* With 0x67, esi and edi. */
    r.rsi = 0xabcdef0012345678ull;
    CHECK(DECODE(&in, "\x67\xf3\xa4") == 0);
    CHECK(insn_implicit_address(&in, &r, 0, 0, INSN_IMPLICIT_RSI, &va) && va == 0x12345678);
}

static void stack_operations_use_rsp(void)
{
    struct cpu_regs r = regs_with_numbers();
    struct insn in;
    uint64_t va;

    CHECK(DECODE(&in, "\x41\x54") == 0 && in.implicit == INSN_IMPLICIT_PUSH);   /* push */
    CHECK(in.stack_bytes == 8);
    CHECK(insn_implicit_address(&in, &r, 0, 0, INSN_IMPLICIT_PUSH, &va) && va == r.rsp - 8);
    CHECK(DECODE(&in, "\x66\x50") == 0 && in.stack_bytes == 2);                 /* pushw */
    CHECK(insn_implicit_address(&in, &r, 0, 0, INSN_IMPLICIT_PUSH, &va) && va == r.rsp - 2);
    CHECK(DECODE(&in, "\x41\x5f") == 0 && in.implicit == INSN_IMPLICIT_POP);    /* pop */
    CHECK(insn_implicit_address(&in, &r, 0, 0, INSN_IMPLICIT_POP, &va) && va == r.rsp);
    CHECK(DECODE(&in, "\xc3") == 0 && in.implicit == INSN_IMPLICIT_POP);        /* ret */
    CHECK(DECODE(&in, "\xe8\x00\x00\x00\x00") == 0 && in.implicit == INSN_IMPLICIT_PUSH);
    CHECK(DECODE(&in, "\xc9") == 0 && in.implicit == INSN_IMPLICIT_POP);        /* leave */
    CHECK(insn_implicit_address(&in, &r, 0, 0, INSN_IMPLICIT_POP, &va) && va == r.rbp);
    /* call *(%rax,%rbx,8): a pointer read and a push */
    CHECK(DECODE(&in, "\xff\x14\xd8") == 0);
    CHECK(in.has_memory_operand && in.implicit == INSN_IMPLICIT_PUSH);
    CHECK(insn_memory_address(&in, &r, 0, 0, &va) && va == 0x1000 + 0x4000 * 8);
    /* push 0x8(%rax), pop (%rdi): memory on both sides */
    CHECK(DECODE(&in, "\xff\x70\x08") == 0 && in.has_memory_operand);
    CHECK(in.implicit == INSN_IMPLICIT_PUSH);
    CHECK(DECODE(&in, "\x8f\x07") == 0 && in.has_memory_operand);
    CHECK(in.implicit == INSN_IMPLICIT_POP);
    /* jmp *%r11: neither memory nor stack */
    CHECK(DECODE(&in, "\x41\xff\xe3") == 0 && !in.has_memory_operand && !in.implicit);
    CHECK(in.mod == 3 && in.rm == 11);
}

static void locked_read_modify_writes(void)
{
    struct cpu_regs r = regs_with_numbers();
    struct insn in;
    uint64_t va;

    /* lock cmpxchg16b 0x10(%rsp) */
    CHECK(DECODE(&in, "\xf0\x48\x0f\xc7\x4c\x24\x10") == 0);
    CHECK(in.lock && in.rex_w && in.map == INSN_MAP_0F && in.opcode == 0xc7);
    CHECK((in.reg & 7) == 1 && in.base == 4 && in.length == 7);
    CHECK(insn_memory_address(&in, &r, 0, 0, &va) && va == 0x5000 + 0x10);
    /* lock cmpxchg %rdx,(%rdi) */
    CHECK(DECODE(&in, "\xf0\x48\x0f\xb1\x17") == 0);
    CHECK(in.lock && in.opcode == 0xb1 && in.reg == 2 && in.base == 7);
    /* xchg %r12,0x8(%rax) */
    CHECK(DECODE(&in, "\x4c\x87\x60\x08") == 0 && in.reg == 12 && in.base == 0);
    /* bts %rsi,0x8(%rdi); btrq $0x5,(%rdi) */
    CHECK(DECODE(&in, "\x48\x0f\xab\x77\x08") == 0 && in.reg == 6 && in.imm_size == 0);
    CHECK(DECODE(&in, "\x48\x0f\xba\x37\x05") == 0 && (in.reg & 7) == 6 && in.immediate == 5);
}

static void vex_and_evex(void)
{
    struct insn in;

    /* vmovdqu (%rsi),%ymm0: two-byte VEX */
    CHECK(DECODE(&in, "\xc5\xfe\x6f\x06") == 0);
    CHECK(in.vex && !in.evex && in.vex_l == 1 && in.vex_pp == 2 && in.base == 6);
    /* vzeroupper: no ModRM */
    CHECK(DECODE(&in, "\xc5\xf8\x77") == 0 && in.length == 3 && !in.has_modrm);
    /* vpalignr with an immediate (0f3a) */
    CHECK(DECODE(&in, "\xc4\xe3\x7d\x0f\xc1\x01") == 0 && in.length == 6);
    CHECK(in.map == INSN_MAP_0F3A && in.imm_size == 1);
    /* vmovdqu64 0x40(%rdi),%zmm17: EVEX, compressed disp8 */
    CHECK(DECODE(&in, "\x62\xe1\xfe\x48\x6f\x4f\x01") == 0);
    CHECK(in.evex && in.vex_l == 2 && in.rex_w && in.displacement == 1 && in.length == 7);
    /* A gather's index is a vector register: no address to give. */
    CHECK(DECODE(&in, "\xc4\xe2\x6d\x90\x04\x88") == 0 && in.vsib && in.length == 6);
    struct cpu_regs r = regs_with_numbers();
    uint64_t va;
    CHECK(!insn_memory_address(&in, &r, 0, 0, &va));
    /* A REX or 0x66 before a VEX is #UD. */
    CHECK(DECODE(&in, "\x48\xc5\xfe\x6f\x06") == INSN_INVALID);
    CHECK(DECODE(&in, "\x66\xc5\xfe\x6f\x06") == INSN_INVALID);
}

static void rex_counts_only_right_before_the_opcode(void)
{
    struct insn in;

    CHECK(DECODE(&in, "\x48\x89\x07") == 0 && in.rex == 0x48 && in.rex_w);
    CHECK(DECODE(&in, "\x48\xf0\x89\x07") == 0 && in.rex == 0 && !in.rex_w && in.lock);
    CHECK(DECODE(&in, "\x41\x48\x89\x07") == 0 && in.rex == 0x48 && !in.rex_b);
}

static void control_register_moves_ignore_mod(void)
{
    struct insn in;

    /* mov %cr0,%rax encoded with mod 0: still a register */
    CHECK(DECODE(&in, "\x0f\x20\x00") == 0 && in.length == 3 && !in.has_memory_operand);
    CHECK(DECODE(&in, "\x44\x0f\x22\xc7") == 0 && in.reg == 8 && in.rm == 7);   /* cr8 */
}

static void invalid_and_too_long(void)
{
    struct insn in;
    static const char *const invalid[] = {
        "\x06", "\x07", "\x0e", "\x16", "\x1e", "\x27", "\x37", "\x60", "\x61", "\x82\x00\x00",
        "\x9a", "\xce", "\xd4", "\xd6", "\xea", "\x0f\x04", "\x0f\x0a", "\x0f\x24\xc0",
        "\x8f\xe9\x78\xe1\xc0",                    /* XOP */
        "\xc4\xe0\x7d\x6f\x06",                    /* VEX map 0 */
        "\x62\xf4\x7c\x48\x10\x06",                /* EVEX map 4 */
    };

    for (size_t i = 0; i < sizeof(invalid) / sizeof(invalid[0]); i++)
        CHECK(decode(&in, invalid[i], strlen(invalid[i]) ? strlen(invalid[i]) : 1) == INSN_INVALID);
    /* 14 prefixes and a two-byte opcode: 16 bytes. */
    CHECK(DECODE(&in, "\x66\x66\x66\x66\x66\x66\x66\x66\x66\x66\x66\x66\x66\x66\x0f\x09") ==
          INSN_TOO_LONG);
    /* 15 prefixes: no room for an opcode, however many bytes follow. */
    CHECK(DECODE(&in, "\x66\x66\x66\x66\x66\x66\x66\x66\x66\x66\x66\x66\x66\x66\x66") ==
          INSN_TOO_LONG);
    /* 13 prefixes and 0f 09: exactly 15. */
    CHECK(DECODE(&in, "\x66\x66\x66\x66\x66\x66\x66\x66\x66\x66\x66\x66\x66\x0f\x09") == 0);
    CHECK(in.length == 15);
    /* An immediate that would end past byte 15. */
    CHECK(DECODE(&in, "\x66\x66\x66\x66\x66\x66\x66\x66\x66\x66\x48\xc7\x07\x00\x00\x00\x00") ==
          INSN_TOO_LONG);
}

int main(void)
{
    RUN(lengths_of_real_instructions);
    RUN(exact_bytes_are_enough_one_fewer_is_truncated);
    RUN(register_numbers_follow_the_x86_order);
    RUN(base_index_scale_displacement);
    RUN(rip_relative_counts_from_the_next_instruction);
    RUN(segment_overrides_and_their_bases);
    RUN(address_size_prefix_truncates_to_32_bits);
    RUN(operand_sizes);
    RUN(immediates_are_sign_extended);
    RUN(group_3_test_has_an_immediate_the_others_not);
    RUN(string_instructions_use_rsi_and_rdi);
    RUN(stack_operations_use_rsp);
    RUN(locked_read_modify_writes);
    RUN(vex_and_evex);
    RUN(rex_counts_only_right_before_the_opcode);
    RUN(control_register_moves_ignore_mod);
    RUN(invalid_and_too_long);
    return check_exit_status();
}
