/* perchbench torture ROUNDS (torture.c): SMP work whose every result is
 * checked. self is how to run this program again (argv[0], looked up in
 * PATH), nop_arg its subcommand that exits 0 at once. */
#ifndef PERCHBENCH_TORTURE_H
#define PERCHBENCH_TORTURE_H

int torture_main(const char *self, const char *nop_arg, const char *rounds_arg);

#endif
